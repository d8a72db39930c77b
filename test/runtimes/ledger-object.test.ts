// The ledger's Durable Object in workerd (miniflare): the store's contract (ledger-suite.ts) with the store in Node
// and the object in workerd, its storage held to 128 keys a call; appends of more than 128 entries; the hourly trim.
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDurableObjectLedgerStore } from '../../src/relay/economy/durable-object-ledger.js';
import { draft, ledgerStoreSuite } from '../relay/ledger-suite.js';
import { bundleCore } from './bundle.js';

let mf: Miniflare;
const call = async (name: string, path: string, init?: RequestInit) => {
  const worker = (await mf.getWorker('ledger')) as unknown as { fetch(url: string, init?: RequestInit): Promise<Response> };
  return worker.fetch(`http://ledger.test${path}?name=${name}`, init);
};

beforeAll(async () => {
  const bundle = await bundleCore(fileURLToPath(new URL('./servers/ledger-worker.ts', import.meta.url)));
  expect(bundle.nodeImports).toEqual([]);
  mf = new Miniflare({
    modules: true,
    script: bundle.code,
    compatibilityDate: '2025-09-01',
    name: 'ledger',
    durableObjects: { LEDGER: { className: 'TestLedger', useSQLite: true } },
  });
  await mf.ready;
}, 60_000);
afterAll(async () => {
  await mf?.dispose();
});

let n = 0;
/** A store in Node whose object is a fresh one in workerd. */
const fresh = (retentionMs?: number) => {
  const name = `ledger-${n++}`;
  const store = createDurableObjectLedgerStore(
    { idFromName: () => name, get: () => ({ fetch: (_url: string, init?: RequestInit) => call(name, '/', init) }) },
    retentionMs === undefined ? {} : { retentionMs },
  );
  return { name, store };
};

ledgerStoreSuite('Durable Object (workerd)', () => fresh().store);

describe('the ledger Durable Object', { timeout: 60_000 }, () => {
  it('appends 300 entries in one call (three storage puts) and trims what is past the retention', async () => {
    const { name, store } = fresh(60_000);
    const old = Date.now() - 120_000;
    const ids = await store.append(Array.from({ length: 300 }, (_, i) => draft(i < 200 ? old : Date.now(), { eventPoints: i })));
    expect(new Set(ids).size).toBe(300);
    expect(await (await call(name, '/size')).json()).toBe(300);
    expect((await call(name, '/alarm', { method: 'POST' })).status).toBe(200);
    expect(await (await call(name, '/size')).json()).toBe(100);
    const { entries } = await store.read({ limit: 1000 });
    expect(entries.map((e) => e.eventPoints)).toEqual(Array.from({ length: 100 }, (_, i) => 200 + i));
  });
});
