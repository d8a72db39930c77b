// The package as a game installs it, without the slow type build: src/ transpiled file by file by esbuild (no
// bundling, no types) into <project>/node_modules/quest-points/dist, quest-points/sw.js built by
// scripts/build-sw.mjs, and package.json. The project lives under test-results/ inside the repo, so the package's
// dependencies (and vite) resolve to the repo's node_modules as a real install's would to its own. The repo's dist/
// is left alone.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const repo = resolve(import.meta.dirname, '../..');

export interface StagedProject {
  /** The game's directory: write its vite.config.ts, index.html and sources here. */
  dir: string;
  /** node_modules/quest-points inside it. */
  pkg: string;
}

export async function stageProject(prefix: string): Promise<StagedProject> {
  await mkdir(join(repo, 'test-results'), { recursive: true });
  const dir = await mkdtemp(join(repo, 'test-results', `${prefix}-`));
  const pkg = join(dir, 'node_modules', 'quest-points');
  const sources = (await readdir(join(repo, 'src'), { recursive: true })).filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'));
  await build({
    entryPoints: sources.map((file) => join(repo, 'src', file)),
    outdir: join(pkg, 'dist'),
    outbase: join(repo, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  await promisify(execFile)(process.execPath, [join(repo, 'scripts/build-sw.mjs'), join(pkg, 'dist')]);
  await copyFile(join(repo, 'package.json'), join(pkg, 'package.json'));
  // The game's own package.json: without it the repo's is the nearest, and 'quest-points' would resolve to the repo
  // itself (Node's self-reference), not to the installed copy.
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'game', private: true, type: 'module' }));
  return { dir, pkg };
}
