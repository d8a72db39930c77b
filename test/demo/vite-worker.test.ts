// The Vite plugin's `worker` option, from the package as installed (test/helpers/stage.ts): the ready-made worker
// served configured at the root under `vite` and `vite preview`, emitted there by `vite build`, and the token URL
// answered with dev tokens under both servers. The worker in Chromium: test/browser/vite-sw.test.ts.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, createServer, preview, type PreviewServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { readToken } from '../../src/sw/token.js';
import { stageProject, type StagedProject } from '../helpers/stage.js';

type Plugin = typeof import('../../src/vite/index.js');

let project: StagedProject;
let plugin: Plugin;
let workerSource: string;

beforeAll(async () => {
  project = await stageProject('vite-worker');
  plugin = (await import(join(project.pkg, 'dist/vite/index.js'))) as Plugin;
  workerSource = await readFile(join(project.pkg, 'dist/sw/worker.js'), 'utf8');
  await writeFile(join(project.dir, 'index.html'), '<!doctype html><title>game</title><p>game</p>');
}, 60_000);
afterAll(async () => {
  await rm(project.dir, { recursive: true, force: true });
});

const WRITTEN = 'globalThis.QUEST_POINTS_SW = {"relayUrl":"/api","tokenUrl":"/session/qp-token"};\n';
const inline = (options: Parameters<Plugin['questPoints']>[0] = { worker: { tokenUrl: '/session/qp-token' } }) => ({
  configFile: false as const,
  root: project.dir,
  logLevel: 'silent' as const,
  plugins: [plugin.questPoints(options)],
});

/** The served worker, the token URL's answer, and an award made with that token through the dev relay. */
async function expectServed(base: string) {
  const worker = await fetch(`${base}/quest-points-sw.js`);
  expect(worker.status).toBe(200);
  expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(await worker.text()).toBe(WRITTEN + workerSource);

  const token = await readToken(await fetch(`${base}/session/qp-token?sub=vite-player`));
  const award = await fetch(`${base}/api${paths.points('vite-quest')}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ serviceUserId: 'vite-player', eventPoints: 2 }),
  });
  expect(award.status).toBe(200);
  // Without ?sub= the token is the dev server's default player's.
  const defaultToken = await (await fetch(`${base}/session/qp-token`)).json();
  expect(defaultToken).toMatchObject({ sub: 'dev-player', role: 'player' });
  // Other paths stay Vite's.
  expect(await (await fetch(`${base}/`)).text()).toContain('game');
}

describe('quest-points/vite: the worker option', () => {
  let server: ViteDevServer | PreviewServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('vite: serves the worker configured at the root and answers the token URL with dev tokens', async () => {
    const dev = await createServer({ ...inline(), server: { host: '127.0.0.1', port: 0, ws: false } });
    server = dev;
    await dev.listen();
    await expectServed(dev.resolvedUrls!.local[0]!.replace(/\/$/, ''));
    await dev.close();
    server = undefined;
  });

  it('vite build: emits the same worker at the root of the output; vite preview serves it and the token URL', async () => {
    const outDir = join(project.dir, 'dist');
    await build({ ...inline(), build: { outDir, emptyOutDir: true } });
    expect(await readFile(join(outDir, 'quest-points-sw.js'), 'utf8')).toBe(WRITTEN + workerSource);

    const served = await preview({ ...inline(), build: { outDir }, preview: { host: '127.0.0.1', port: 0, open: false } });
    server = served;
    await expectServed(served.resolvedUrls!.local[0]!.replace(/\/$/, ''));
  });

  it('writes in every option given: relayUrl, storageName, tag, budgetMs, another file name', async () => {
    const outDir = join(project.dir, 'dist-options');
    await build({
      ...inline({ worker: { tokenUrl: '/t', relayUrl: '/qp', storageName: 'my-game', tag: 'my-tag', budgetMs: 30_000, fileName: 'sw.js' } }),
      build: { outDir, emptyOutDir: true },
    });
    expect(await readFile(join(outDir, 'sw.js'), 'utf8')).toBe(
      `globalThis.QUEST_POINTS_SW = {"relayUrl":"/qp","tokenUrl":"/t","storageName":"my-game","tag":"my-tag","budgetMs":30000};\n${workerSource}`,
    );
  });

  it('without the option vite build leaves no worker (and the plugin is not applied to the build)', async () => {
    const outDir = join(project.dir, 'dist-none');
    await build({ ...inline({}), build: { outDir, emptyOutDir: true } });
    await expect(readFile(join(outDir, 'quest-points-sw.js'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([
    [{ tokenUrl: 'https://login.example/token' }, /worker\.tokenUrl must be a path on the game's origin/],
    [{ tokenUrl: '//login.example/token' }, /worker\.tokenUrl must be a path on the game's origin/],
    [{ tokenUrl: '/t', fileName: '../sw.js' }, /worker\.fileName must be a file name ending in \.js/],
    [{ tokenUrl: '/t', relayUrl: '' }, /worker\.relayUrl must be a non-empty string/],
    [{ tokenUrl: '/t', budgetMs: 0 }, /worker\.budgetMs must be a positive number/],
  ])('refuses %j, naming the option', (worker, message) => {
    expect(() => plugin.questPoints({ worker: worker as { tokenUrl: string } })).toThrow(message);
  });
});
