// `quest-points dev` is for games with their own dev server: Unity's Build And Run, Godot's web export server, Vite.
// Their pages live on another loopback port and call the dev relay cross-origin. Over a real socket, as the CLI serves
// it (startDevServer), not in process: the relay once read the Origin straight off Node's request, past the dev
// server's own loopback CORS, and refused every such page 403.
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type RunningDevServer } from '../../src/dev/index.js';
import { startNodeServer } from '../../src/kit/index.js';
import { browserBundle } from '../helpers/bundle.js';
import { launchChromium } from '../helpers/chromium.js';
import { withPage } from '../helpers/dev-site.js';
import { until } from '../helpers/until.js';

let running: RunningDevServer;
beforeAll(async () => {
  running = await startDevServer({ port: 0, logger: () => {} });
});
afterAll(() => running?.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { success?: boolean; message?: string; code?: string; results?: { outcome: string }[] };
}

/** A POST over a real socket, with exactly the headers given (Origin included: fetch would not let us set it). */
function post(path: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      `${running.url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('quest-points dev over a real socket: a page on another loopback port', () => {
  const origins = [`http://127.0.0.1:${39653}`, 'http://localhost:5173', 'http://[::1]:8080'];

  it.each(origins)('awards one at a time from %s', async (origin) => {
    const sub = `single-${new URL(origin).port}`;
    const token = await running.dev.mintToken({ sub });
    const answer = await post('/api/group-quests/q-dev/points', { origin, authorization: `Bearer ${token}` }, { serviceUserId: sub, eventPoints: 5 });
    expect(answer.body).toEqual({ success: true });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(origin);
  });

  it.each(origins)('awards in a batch from %s', async (origin) => {
    const sub = `batch-${new URL(origin).port}`;
    const token = await running.dev.mintToken({ sub });
    const awards = [1, 2].map((eventPoints) => ({ questId: 'q-dev', serviceUserId: sub, eventPoints, idempotencyKey: crypto.randomUUID() }));
    const answer = await post('/api/batch/points', { origin, authorization: `Bearer ${token}` }, { awards });
    expect(answer.status).toBe(200);
    expect(answer.body.results?.map((result) => result.outcome)).toEqual(['ok', 'ok']);
  });

  it("the awards are in the emulator ledger, and another machine's page is still refused", async () => {
    const state = (await (await fetch(`${running.urls.emulator}/state`)).json()) as { data: { ledger: { serviceUserId: string }[] } };
    for (const origin of origins) {
      const port = new URL(origin).port;
      expect(state.data.ledger.filter((entry) => entry.serviceUserId === `single-${port}`)).toHaveLength(1);
      expect(state.data.ledger.filter((entry) => entry.serviceUserId === `batch-${port}`)).toHaveLength(2);
    }
    const token = await running.dev.mintToken({ sub: 'evil' });
    const refused = await post(
      '/api/group-quests/q-dev/points',
      { origin: 'https://evil.example', authorization: `Bearer ${token}` },
      { serviceUserId: 'evil', eventPoints: 5 },
    );
    expect(refused.status).toBe(403);
  });
});

describe('in Chromium: a game served on one loopback port, `quest-points dev` on another', () => {
  it('delivers every award to the emulator ledger, none dead-lettered', { timeout: 90_000 }, async () => {
    const script = await browserBundle(fileURLToPath(new URL('./pages/other-port.ts', import.meta.url)));
    const page =
      '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>game</title><script type="module" src="/game.js"></script>';
    // The game's own dev server: its page and script only, as Unity's Build And Run or Godot's web server serve a build.
    const game = await startNodeServer({
      host: '127.0.0.1',
      port: 0,
      fetch: (request) => {
        const path = new URL(request.url).pathname;
        if (path === '/game.js') return new Response(script, { headers: { 'content-type': 'text/javascript' } });
        return new Response(page, { headers: { 'content-type': 'text/html' } });
      },
    });
    const browser = await launchChromium();
    try {
      expect(new URL(game.url).port).not.toBe(String(running.port));
      await withPage(browser, async (tab, errors) => {
        await tab.goto(`${game.url}/?dev=${encodeURIComponent(running.url)}&sub=browser-player`);
        await tab.waitForFunction(() => 'award' in window);
        const outcomes = [];
        for (const points of [3, 4, 5]) {
          outcomes.push(await tab.evaluate((p) => (window as unknown as { award(p: number): Promise<unknown> }).award(p), points));
        }
        expect(outcomes).toEqual([3, 4, 5].map(() => ({ outcome: 'sent', deadLetters: 0 })));
        const ledger = await until(
          async () => {
            const state = (await (await fetch(`${running.urls.emulator}/state`)).json()) as {
              data: { ledger: { serviceUserId: string; eventPoints: number }[] };
            };
            const mine = state.data.ledger.filter((entry) => entry.serviceUserId === 'browser-player');
            return mine.length >= 3 ? mine : undefined;
          },
          'three awards in the ledger',
          30_000,
        );
        expect(ledger.map((entry) => entry.eventPoints).sort()).toEqual([3, 4, 5]);
        expect(errors).toEqual([]);
      });
    } finally {
      await browser.close();
      await game.close();
    }
  });
});
