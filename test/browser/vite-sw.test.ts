// docs/sdk.md's Vite setup, end to end in Chromium: a game project made of the doc's vite.config.ts and src/main.ts
// (verbatim) over the package as installed (test/helpers/stage.ts), served by the Vite dev server this test starts on
// a free port. The page registers the worker the documented way; awards are queued offline; the tab is closed; back
// online, the worker the plugin serves delivers them, each once, with a token from the plugin's token URL.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { createServer, type Plugin, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { stageProject, type StagedProject } from '../helpers/stage.js';
import { until } from '../helpers/until.js';
import type { QuestPoints } from '../../src/client/index.js';

/** The demo app's window: its client on `qp`. */
type AppWindow = { qp: QuestPoints };
/** Background Sync is not in TypeScript's DOM lib. */
type SyncRegistration = ServiceWorkerRegistration & { sync: { getTags(): Promise<string[]> } };

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A ```ts block of docs/sdk.md by its first line (`// vite.config.ts`), verbatim. */
function docBlock(firstLine: string): string {
  const blocks = [...readFileSync(`${root}docs/sdk.md`, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const block = blocks.find((b) => b.startsWith(`${firstLine}\n`));
  if (!block) throw new Error(`docs/sdk.md has no \`\`\`ts block starting with ${firstLine}`);
  return block;
}

/** Award requests and token mints as the server saw them; requests with a closed page's tokens dropped unanswered. */
function recorder() {
  const minted: { token: string; afterClose: boolean }[] = [];
  const sends: { token: string; at: number; dropped: boolean }[] = [];
  let pageClosed = false;
  const plugin: Plugin = {
    name: 'test-recorder',
    enforce: 'pre',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!;
        if (path === '/session/qp-token') {
          // The token in the answer, however the adapter writes it (write() then end(), or end(chunk)).
          const chunks: Buffer[] = [];
          const take = (chunk: unknown) => {
            if (chunk !== undefined && typeof chunk !== 'function')
              chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
          };
          const write = res.write.bind(res) as (...args: unknown[]) => boolean;
          const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
          res.write = ((chunk: unknown, ...rest: unknown[]) => {
            take(chunk);
            return write(chunk, ...rest);
          }) as typeof res.write;
          res.end = ((chunk?: unknown, ...rest: unknown[]) => {
            take(chunk);
            try {
              const { token } = JSON.parse(Buffer.concat(chunks).toString()) as { token?: string };
              if (token) minted.push({ token, afterClose: pageClosed });
            } catch {}
            return end(chunk, ...rest);
          }) as typeof res.end;
        }
        if (req.method === 'POST' && (path === '/api/batch/points' || /^\/api\/group-quests\/[^/]+\/points$/.test(path))) {
          const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
          // The closed page's pagehide batch, which DevTools offline emulation may let out once back online (a player
          // really offline sees it fail): it must not stand in for the worker.
          const dropped = pageClosed && !minted.some((m) => m.token === token && m.afterClose);
          sends.push({ token, at: performance.now(), dropped });
          if (dropped) {
            req.socket.destroy();
            return;
          }
        }
        next();
      });
    },
  };
  const closePage = () => {
    pageClosed = true;
  };
  return { plugin, minted, sends, closePage };
}

let project: StagedProject;
let browser: Browser;
let server: ViteDevServer;
let base: string;
const seen = recorder();

beforeAll(async () => {
  [project, browser] = await Promise.all([stageProject('vite-sw'), launchChromium()]);
  await writeFile(join(project.dir, 'vite.config.ts'), docBlock('// vite.config.ts'));
  await writeFile(
    join(project.dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>game</title><script type="module" src="/src/main.ts"></script>',
  );
  // The snippet as written (it defines everything it uses), and a handle for the test.
  const main = [docBlock('// src/main.ts'), 'Object.assign(window, { qp });'].join('\n');
  await mkdir(join(project.dir, 'src'));
  await writeFile(join(project.dir, 'src/main.ts'), main);
  // The project's own vite.config.ts; the test adds only the loopback port, quiet logs and its recorder.
  server = await createServer({
    root: project.dir,
    configFile: join(project.dir, 'vite.config.ts'),
    logLevel: 'silent',
    server: { host: '127.0.0.1', port: 0 },
    plugins: [seen.plugin],
  });
  await server.listen();
  base = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (project) await rm(project.dir, { recursive: true, force: true });
});

interface LedgerEntry {
  serviceUserId: string;
  eventPoints: number;
  idempotencyKey: string;
}

/** The dev server's emulator ledger (its admin route answers this machine). */
async function ledgerOf(serviceUserId: string): Promise<LedgerEntry[]> {
  const { data } = (await (await fetch(`${base}/__emulator/state`)).json()) as { data: { ledger: LedgerEntry[] } };
  return data.ledger.filter((entry) => entry.serviceUserId === serviceUserId);
}

describe('docs/sdk.md "With Vite", in Chromium', () => {
  it("awards queued offline in the documented game are delivered by the plugin's worker with the tab closed, each once", async () => {
    const context = await browser.newContext();
    try {
      const workerLog: string[] = [];
      context.on('serviceworker', (worker) => worker.on('console', (message) => workerLog.push(message.text())));
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${base}/`);
      await page.waitForFunction(() => 'qp' in window, undefined, { timeout: 30_000 });
      // The worker the page registered is the plugin's, active at the root.
      const registration = await page.evaluate(async () => {
        const r = await navigator.serviceWorker.ready;
        return { scope: r.scope, script: r.active?.scriptURL };
      });
      expect(registration).toEqual({ scope: `${base}/`, script: `${base}/quest-points-sw.js` });
      await until(
        () => page.evaluate(() => Object.values((window as unknown as AppWindow).qp.getSnapshot().points).some((v) => v.confirmedAt)),
        'the first read of the points',
      );

      await context.setOffline(true);
      const points = Array.from({ length: 12 }, (_, i) => i + 1);
      const keys: string[] = await page.evaluate(async (pts) => {
        const handles = pts.map((eventPoints) => (window as unknown as AppWindow).qp.award({ eventPoints, eventName: 'vite_award' }));
        await Promise.all(handles.map((h) => h.persisted));
        return handles.map((h) => h.idempotencyKey);
      }, points);
      expect(new Set(keys).size).toBe(points.length);
      const tags = () => page.evaluate(async () => ((await navigator.serviceWorker.ready) as SyncRegistration).sync.getTags());
      await until(async () => (await tags()).includes('quest-points'), 'the sync tag');
      await page.close();
      seen.closePage();
      expect(context.pages()).toEqual([]);

      const online = performance.now();
      await context.setOffline(false);
      const ledger = await until(
        async () => {
          const entries = await ledgerOf('dev-player');
          return entries.length >= points.length ? entries : undefined;
        },
        'the worker to deliver',
        30_000,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}; sends ${JSON.stringify(seen.sends.map((x) => x.dropped))}, tokens minted ${JSON.stringify(seen.minted.map((m) => m.afterClose))}; worker console: ${workerLog.join(' | ')}`,
        );
      });
      const deliveredMs = performance.now() - online;

      // Each award once, with its points (1..12 are distinct), and nothing else.
      expect(ledger.map((e) => e.eventPoints).sort((a, b) => a - b)).toEqual(points);
      expect(new Set(ledger.map((e) => e.idempotencyKey)).size).toBe(points.length);
      // Sent with a token the worker got from the plugin's token URL after the page was gone.
      const delivering = seen.sends.filter((s) => !s.dropped);
      const workerTokens = new Set(seen.minted.filter((m) => m.afterClose).map((m) => m.token));
      expect(delivering.length).toBeGreaterThan(0);
      expect(delivering.every((s) => workerTokens.has(s.token))).toBe(true);
      expect(workerLog).toEqual([]);
      console.info(
        `Vite setup (docs/sdk.md), tab closed: ${points.length} awards delivered by the plugin's worker ${deliveredMs.toFixed(0)} ms after online, ` +
          `${delivering.length} request(s), ${seen.sends.length - delivering.length} closed-page request(s) dropped, ${ledger.length} ledger entries`,
      );

      // The next page finds nothing left, and the sync event succeeded (no tag waits for another attempt).
      const next = await context.newPage();
      next.on('pageerror', (error) => errors.push(error.message));
      await next.goto(`${base}/`);
      await next.waitForFunction(() => 'qp' in window, undefined, { timeout: 30_000 });
      expect(await next.evaluate(async () => (await (window as unknown as AppWindow).qp.pending()).length)).toBe(0);
      expect(await next.evaluate(async () => ((await navigator.serviceWorker.ready) as SyncRegistration).sync.getTags())).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
