// The relay as a Cloudflare Worker in workerd (miniflare): test/runtimes/servers/worker.ts bundled by esbuild for a
// runtime without Node. Two Workers (two isolates, each its own relay) share one Durable Object namespace.
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { bundleCore } from './bundle.js';
import { awardsGoThrough, limitedPolicy, limitIsShared, playerToken, type Client } from './harness.js';

const LIMIT = 6;
let emulator: RunningEmulator;
let mf: Miniflare;

const worker =
  (mf: Miniflare, name: string): Client =>
  async (path, init) => {
    const target = (await mf.getWorker(name)) as unknown as { fetch(url: string, init: RequestInit): Promise<Response> };
    return target.fetch(`http://relay.test${path}`, init);
  };

beforeAll(async () => {
  const [running, bundle] = await Promise.all([
    startEmulator({ port: 0, apiKeys: [API_KEY] }),
    bundleCore(fileURLToPath(new URL('./servers/worker.ts', import.meta.url))),
  ]);
  emulator = running;
  expect(bundle.nodeImports).toEqual([]);
  const bindings = {
    QP_UPSTREAM_URL: emulator.url,
    QP_API_KEY: API_KEY,
    QP_RELAY_SECRET: SECRET,
    QP_KEY_SECRET: KEY_SECRET,
    QP_POLICY_JSON: JSON.stringify(limitedPolicy(LIMIT)),
  };
  const base = { modules: true, script: bundle.code, compatibilityDate: '2025-09-01', bindings };
  mf = new Miniflare({
    workers: [
      // Two Workers on one namespace: each its own isolate and its own relay, the counters in the objects.
      { ...base, name: 'relay-a', durableObjects: { RATE_LIMITS: 'RateLimitCounter' } },
      { ...base, name: 'relay-b', durableObjects: { RATE_LIMITS: { className: 'RateLimitCounter', scriptName: 'relay-a' } } },
      // And two without a namespace: each counts in its own isolate's memory.
      { ...base, name: 'relay-memory' },
      { ...base, name: 'relay-memory-2' },
    ],
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await emulator?.close();
});

describe('Cloudflare Workers (workerd via miniflare)', { timeout: 30_000 }, () => {
  it('memory store: single awards and a batch reach the emulator', async () => {
    await awardsGoThrough(worker(mf, 'relay-memory'));
  });

  it('Durable Object store: single awards and a batch reach the emulator from either isolate', async () => {
    await awardsGoThrough(worker(mf, 'relay-a'));
    await awardsGoThrough(worker(mf, 'relay-b'));
  });

  it('Durable Object store: two isolates count one per-player limit', async () => {
    await limitIsShared(worker(mf, 'relay-a'), worker(mf, 'relay-b'), LIMIT);
  });

  it('the memory store is per isolate: the same traffic over two isolates without the namespace passes twice the limit', async () => {
    // What the Durable Object store is for; the control that shows the test above can fail.
    const player = `p-${crypto.randomUUID()}`;
    const jwt = await playerToken(player);
    const clients = [worker(mf, 'relay-memory'), worker(mf, 'relay-memory-2')];
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const answer = await clients[i % 2]!('/group-quests/q1/points', {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: player, eventPoints: 1 }),
      });
      statuses.push(answer.status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(2 * LIMIT);
  });

  it('GET /metrics is absent on Workers: 404 saying why', async () => {
    const answer = await worker(mf, 'relay-a')('/metrics', { method: 'GET' });
    expect([answer.status, await answer.json()]).toEqual([
      404,
      { success: false, message: 'no metrics on this relay: it was created without a Prometheus metrics sink' },
    ]);
  });
});
