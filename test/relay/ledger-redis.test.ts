// The ledger's Redis stream on one redis-server and on a Redis Cluster (3 masters): the store's contract, its
// trimming by count and by age, and its cost (one script per append, whatever the batch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCounterStore, type RedisCounterStore } from '../../src/relay/node/index.js';
import { startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { draft, ledgerStoreSuite } from './ledger-suite.js';
import { commandCalls, delta } from './redis-suite.js';

let redis: TestRedis;
let cluster: TestRedisCluster;
const stores: RedisCounterStore[] = [];
beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3, replicasPerMaster: 0 })]);
}, 60_000);
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close?.()));
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

let n = 0;
/** A store with a prefix of its own: each test reads an empty stream. */
const storeOn = async (url: () => string, ledger: { retentionMs?: number; maxEntries?: number } = {}) => {
  const store = await createRedisCounterStore({ url: url(), prefix: `t${n++}:`, ledger });
  stores.push(store);
  return store;
};

ledgerStoreSuite('Redis', async () => (await storeOn(() => redis.url)).ledger);
ledgerStoreSuite('Redis Cluster', async () => (await storeOn(() => cluster.url)).ledger);

describe('the Redis ledger stream', () => {
  it('appends a batch in one script (one round trip), its entries in one XADD each, trimmed by count', async () => {
    const { ledger } = await storeOn(() => redis.url, { maxEntries: 100 });
    const before = await commandCalls([redis.port]);
    await ledger.append(Array.from({ length: 50 }, (_, i) => draft(Date.now(), { eventPoints: i })));
    expect(delta(before, await commandCalls([redis.port]))).toEqual({ evalsha: 1, xadd: 50, xtrim: 2 });
    for (let i = 0; i < 10; i++) await ledger.append(Array.from({ length: 100 }, () => draft(Date.now())));
    // MAXLEN ~ trims whole macro-nodes (100 entries each by default): never below the cap, at most one node above.
    let count = 0;
    for (let after: string | undefined, pages = 0; pages < 20; pages++) {
      const page = await ledger.read({ limit: 1000, ...(after ? { after } : {}) });
      count += page.entries.length;
      if (!page.next) break;
      after = page.next;
    }
    expect(count).toBeGreaterThanOrEqual(100);
    expect(count).toBeLessThanOrEqual(200);
  });

  it('drops entries older than the retention (MINID) on append', async () => {
    const { ledger } = await storeOn(() => redis.url, { retentionMs: 200 });
    // More than a macro-node's worth, so the approximate trim has whole nodes to drop.
    await ledger.append(Array.from({ length: 300 }, () => draft(Date.now())));
    await new Promise((resolve) => setTimeout(resolve, 250));
    await ledger.append([draft(Date.now(), { player: 'late' })]);
    const { entries } = await ledger.read({ limit: 1000 });
    expect(entries.length).toBeLessThan(300);
    expect(entries.at(-1)?.player).toBe('late');
  });

  it('on a cluster the stream is one key: every append and read goes to the node owning its slot', async () => {
    const { ledger } = await storeOn(() => cluster.url);
    await ledger.append([draft(Date.now(), { player: 'c1' }), draft(Date.now(), { player: 'c2' })]);
    expect((await ledger.read({})).entries.map((e) => e.player)).toEqual(['c1', 'c2']);
  });
});
