// The previous release, as players' browsers still run it: test/fixtures/releases/quest-points-0.1.0-322e40d.tgz is
// `npm pack` of main at 322e40d (0.1.0, before the stored-format contract), keeping only what a browser runs of it
// (dist/client, dist/protocol, dist/sw .js: 74 KB). The next release replaces it with its own pack.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { BROWSER_BUNDLE } from './bundle.js';

const repo = resolve(import.meta.dirname, '../..');
export const PREVIOUS_TARBALL = join(repo, 'test/fixtures/releases/quest-points-0.1.0-322e40d.tgz');

let unpacked: Promise<string> | undefined;
/** The tarball unpacked once per process: its `package/dist` folder. */
function dist(): Promise<string> {
  unpacked ??= (async () => {
    const folder = await mkdtemp(join(tmpdir(), 'qp-previous-'));
    await promisify(execFile)('tar', ['xzf', PREVIOUS_TARBALL, '-C', folder]);
    return join(folder, 'package/dist');
  })();
  return unpacked;
}

/**
 * The tests' SDK page (test/browser/pages/sdk-page.ts) over the previous release: its imports of src/client and src/sw
 * resolve to the tarball's dist, the packages it depends on to this repository's node_modules (the same versions'
 * ranges). The page itself uses only API that 0.1.0 has.
 */
export async function previousPage(): Promise<string> {
  const old = await dist();
  const src = join(repo, 'src');
  const toPrevious: Plugin = {
    name: 'previous-release',
    setup(b) {
      b.onResolve({ filter: /\/src\// }, (args) => {
        const wanted = resolve(dirname(args.importer), args.path);
        return wanted.startsWith(`${src}/`) ? { path: join(old, wanted.slice(src.length + 1)) } : undefined;
      });
    },
  };
  const result = await build({
    ...BROWSER_BUNDLE,
    entryPoints: [join(repo, 'test/browser/pages/sdk-page.ts')],
    plugins: [toPrevious],
    nodePaths: [join(repo, 'node_modules')],
  });
  const text = result.outputFiles[0]!.text;
  if (text.includes('src/client/')) throw new Error('the previous page was bundled with the current src/client');
  return text;
}

/** The previous release's quest-points/sw.js, as published: one bundled ES module. */
export async function previousWorker(): Promise<string> {
  return readFile(join(await dist(), 'sw/worker.js'), 'utf8');
}
