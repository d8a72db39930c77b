// The idempotency record's hourly sweep in workerd (miniflare), its storage held to Cloudflare's documented 128 keys
// per call (servers/records-worker.ts; the unit test's fake storage has no limit): more than a page of expired
// records, over several pages, all deleted, the live ones kept, and the alarm set again.
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCore } from './bundle.js';

let mf: Miniflare;
const call = async (path: string, init?: RequestInit) => {
  const worker = (await mf.getWorker('records')) as unknown as { fetch(url: string, init?: RequestInit): Promise<Response> };
  return worker.fetch(`http://records.test${path}`, init);
};
const set = (entries: [string, string][], ttlMs: number) =>
  call('/', { method: 'POST', body: JSON.stringify({ op: 'set', entries, ttlMs }) }).then((r) => expect(r.status).toBe(200));

beforeAll(async () => {
  const bundle = await bundleCore(fileURLToPath(new URL('./servers/records-worker.ts', import.meta.url)));
  expect(bundle.nodeImports).toEqual([]);
  mf = new Miniflare({
    modules: true,
    script: bundle.code,
    compatibilityDate: '2025-09-01',
    name: 'records',
    durableObjects: { RECORDS: { className: 'SweptRecords', useSQLite: true } },
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

describe('the Durable Object record sweep in workerd', { timeout: 60_000 }, () => {
  it('deletes 2,300 expired records over three pages (at most 128 keys a call) and keeps the 200 live ones', async () => {
    const key = (prefix: string, i: number) => `qp:idem:${prefix}-${String(i).padStart(5, '0')}`;
    // Live records sorted among the expired ones: every page mixes both. Written 100 at a time, as a batch would.
    for (let i = 0; i < 2_300; i += 100)
      await set(
        Array.from({ length: 100 }, (_, j) => [key('b', i + j), 'expired']),
        1,
      );
    for (let i = 0; i < 200; i += 100)
      await set(
        Array.from({ length: 100 }, (_, j) => [key('a', i * 12 + j), 'live']),
        3_600_000,
      );
    expect(await (await call('/size')).json()).toBe(2_500);
    await new Promise((resolve) => setTimeout(resolve, 5)); // past the 1 ms records' expiry
    const sizes: number[] = [];
    for (let page = 0; page < 3; page++) {
      const sweep = await call('/sweep', { method: 'POST' });
      expect(await sweep.json()).toEqual({ ok: true, alarm: expect.any(Number) });
      sizes.push((await (await call('/size')).json()) as number);
    }
    // A thousand keys a page: the expired among them deleted, page after page.
    expect(sizes[sizes.length - 1]).toBe(200);
    expect(sizes[0]).toBeGreaterThan(200);
    const live = await call('/', { method: 'POST', body: JSON.stringify({ op: 'get', keys: [key('a', 0), key('b', 0)] }) });
    expect(await live.json()).toEqual(['live', null]);
    // More than 128 keys in one lookup or write (a custom caller's): split too.
    const many = Array.from({ length: 300 }, (_, i) => key('c', i));
    await set(
      many.map((k) => [k, 'many']),
      3_600_000,
    );
    const read = await call('/', { method: 'POST', body: JSON.stringify({ op: 'get', keys: many }) });
    expect(new Set(await read.json())).toEqual(new Set(['many']));
  });
});
