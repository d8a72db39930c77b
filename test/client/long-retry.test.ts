// @vitest-environment happy-dom
// A 429 with a Retry-After past what setTimeout takes (2^31-1 ms): 40 days, a monthly per-player window. On c6b8ff8
// the delay overflowed the timer, which fired at once: 1,478 sends in 2 s from one tab. Clamped once in protocol
// (retry.ts), the award waits, asking again every backoff.maxMs.
import 'fake-indexeddb/auto';
import { afterEach, expect, it } from 'vitest';
import { fakeRelay, json, testClients, until } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

it('a 429 with Retry-After: 3456000 (40 days) is one send per maxMs, not a tight loop', async () => {
  const relay = fakeRelay((req) =>
    req.method === 'POST' ? json(429, { success: false, message: 'monthly limit' }, { 'retry-after': '3456000' }) : undefined,
  );
  const qp = client({ fetch: relay.fetch, backoff: { baseMs: 50, maxMs: 200 } });
  const delays: number[] = [];
  qp.on('award:retrying', (e) => delays.push(e.delayMs));
  qp.award({ eventPoints: 1 });
  await until(() => delays.length > 0);
  const start = Date.now();
  // A real window of 1 s: at most one send every 200 ms (6 with the first); the overflowed timer made hundreds.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const sends = relay.sentKeys().length;
  const elapsed = Date.now() - start;
  expect(sends, `${sends} sends in ${elapsed} ms`).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 1);
  expect(sends).toBeGreaterThanOrEqual(2);
  expect(Math.max(...delays)).toBeLessThanOrEqual(200);
  expect(qp.getSnapshot().queueSize).toBe(1);
});
