// The relay mounted under a path of the game's own server, as docs/relay.md "Deploying" shows it: a Hono app. It takes
// single awards and a batch to a real emulator, and the game's own routes keep answering beside it.
// Express 5, Fastify 5 and Next.js are examples/relay-express, relay-fastify and relay-nextjs, run as written by
// examples.test.ts.
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createRelay, type RelayOptions } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET } from '../helpers/fixtures.js';
import { awardsGoThrough, type Client } from './harness.js';

let emulator: RunningEmulator;
const closers: (() => Promise<unknown>)[] = [];
const options = (): RelayOptions => ({
  upstream: { url: emulator.url, apiKey: API_KEY },
  secret: SECRET,
  keySecret: KEY_SECRET,
  policy: OPEN_POLICY,
  logger: () => {},
});

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: [API_KEY] });
});
afterAll(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await emulator?.close();
});

/** The game's own route answers beside the relay, and the relay's own /healthz answers under the mount. */
async function besideTheGame(game: Client, relay: Client): Promise<void> {
  const own = await game('/api/health', { method: 'GET' });
  expect([own.status, await own.json()]).toEqual([200, { game: 'ok' }]);
  const health = await relay('/healthz', { method: 'GET' });
  expect([health.status, await health.json()]).toEqual([200, { success: true, data: { status: 'ok' } }]);
}

describe("inside the game's own server", { timeout: 30_000 }, () => {
  // Express 5, Fastify 5 and the Next.js route: examples/relay-express, relay-fastify and relay-nextjs, run as written
  // by examples.test.ts (the route module called as Next's server calls it: test/runtimes/servers/next-route.ts).

  it("Hono: app.all(path/*) hands the raw request (and the runtime's bindings) to a relay with that basePath", async () => {
    const app = new Hono();
    const relay = createRelay({ ...options(), basePath: '/qp' });
    app.all('/qp/*', (c) => relay.fetch(c.req.raw, c.env));
    app.get('/api/health', (c) => c.json({ game: 'ok' }));
    const client =
      (prefix: string): Client =>
      (path, init) =>
        Promise.resolve(app.fetch(new Request(`http://game.test${prefix}${path}`, init)));
    await awardsGoThrough(client('/qp'));
    await besideTheGame(client(''), client('/qp'));
  });
});
