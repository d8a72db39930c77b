// The leaderboard stores' contract, memory, Redis and a Redis Cluster alike: competition ranks with ties, the players around one,
// the group's total, an award's key counted once, reversals, reconciliation's set, lease and cursor; and the memory
// store's bounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLeaderboardStore, type LeaderboardStore } from '../../src/relay/index.js';
import { createRedisCounterStore, type RedisCounterStore } from '../../src/relay/node/index.js';
import { startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let cluster: TestRedisCluster;
const opened: RedisCounterStore[] = [];
beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3, replicasPerMaster: 0 })]);
}, 60_000);
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close?.()));
  await Promise.all([redis?.stop(), cluster?.stop()]);
});
let n = 0;

function suite(name: string, make: () => Promise<LeaderboardStore>) {
  describe(`the ${name} leaderboard store`, () => {
    it('ranks with ties sharing a rank (1, 2, 2, 4), top N and the group', async () => {
      const store = await make();
      await store.add('q', 'ann', 100);
      await store.add('q', 'bob', 90);
      await store.add('q', 'cat', 60);
      await store.add('q', 'cat', 30);
      await store.add('q', 'dan', 80);
      await store.add('other', 'ann', 5);
      // Ties in the store's order: by id, descending (as Redis orders equal scores).
      expect(await store.top('q', 10)).toEqual([
        { player: 'ann', rank: 1, points: 100 },
        { player: 'cat', rank: 2, points: 90 },
        { player: 'bob', rank: 2, points: 90 },
        { player: 'dan', rank: 4, points: 80 },
      ]);
      expect(await store.top('q', 2)).toHaveLength(2);
      expect(await store.group('q')).toEqual({ totalPoints: 360, players: 4 });
      expect(await store.group('none')).toEqual({ totalPoints: 0, players: 0 });
      expect(await store.top('none', 5)).toEqual([]);
    });

    it("gives a player's rank and the k around them; a window starting inside a tie keeps the tie's rank", async () => {
      const store = await make();
      for (const [player, points] of [
        ['a', 50],
        ['b', 40],
        ['c', 40],
        ['d', 40],
        ['e', 30],
        ['f', 20],
      ] as const) {
        await store.add('q', player, points);
      }
      // Order: a 50, d 40, c 40, b 40, e 30, f 20.
      const e = await store.around('q', 'e', 1);
      expect(e.you).toEqual({ player: 'e', rank: 5, points: 30 });
      expect(e.around).toEqual([
        { player: 'b', rank: 2, points: 40 },
        { player: 'e', rank: 5, points: 30 },
        { player: 'f', rank: 6, points: 20 },
      ]);
      const a = await store.around('q', 'a', 2);
      expect(a.around.map((row) => [row.player, row.rank])).toEqual([
        ['a', 1],
        ['d', 2],
        ['c', 2],
      ]);
      expect(await store.around('q', 'nobody', 2)).toEqual({ you: null, around: [] });
    });

    it('reconciliation: set moves the group by the difference; one lease holder, renewed and released; a cursor kept and cleared', async () => {
      const store = await make();
      const quest = `rc${n++}`;
      await store.add(quest, 'ann', 10);
      expect(await store.set?.(quest, 'ann', 25)).toBe(true);
      expect(await store.set?.(quest, 'bob', 5, null)).toBe(true);
      expect(await store.score?.(quest, 'ann')).toBe(25);
      expect(await store.group(quest)).toEqual({ totalPoints: 30, players: 2 });
      expect(await store.lease?.(quest, 'one', 10_000)).toBe(true);
      expect(await store.lease?.(quest, 'two', 10_000)).toBe(false);
      expect(await store.lease?.(quest, 'one', 10_000)).toBe(true);
      await store.release?.(quest, 'two');
      expect(await store.lease?.(quest, 'two', 10_000)).toBe(false);
      await store.release?.(quest, 'one');
      expect(await store.lease?.(quest, 'two', 10_000)).toBe(true);
      expect(await store.cursor?.(quest)).toBeUndefined();
      await store.saveCursor?.(quest, 500);
      expect(await store.cursor?.(quest)).toBe(500);
      await store.saveCursor?.(quest, undefined);
      expect(await store.cursor?.(quest)).toBeUndefined();
    });

    it("counts an award's key once, and a reversal takes its points back", async () => {
      const store = await make();
      expect(await store.add('q', 'ann', 10, 'k1')).toBe(true);
      expect(await store.add('q', 'ann', 10, 'k1')).toBe(false);
      expect(await store.add('q', 'ann', 2.5)).toBe(true);
      expect(await store.add('q', 'ann', 2.5)).toBe(true);
      expect(await store.add('q', 'ann', -10, 'r1')).toBe(true);
      expect(await store.around('q', 'ann', 0)).toEqual({
        you: { player: 'ann', rank: 1, points: 5 },
        around: [{ player: 'ann', rank: 1, points: 5 }],
      });
      expect(await store.group('q')).toEqual({ totalPoints: 5, players: 1 });
    });
  });
}

suite('memory', async () => createMemoryLeaderboardStore());
const onRedis = (url: () => string) => async () => {
  const store = await createRedisCounterStore({ url: url(), prefix: `t${n++}:` });
  opened.push(store);
  return store.leaderboard;
};
suite(
  'Redis',
  onRedis(() => redis.url),
);
// Every key of a quest under its hash tag: the add script's three keys in one slot (else CROSSSLOT).
suite(
  'Redis Cluster',
  onRedis(() => cluster.url),
);

describe('the memory store is bounded', () => {
  it('drops the lowest player for a newcomer past maxPlayers, the quest least recently moved past maxQuests', async () => {
    const store = createMemoryLeaderboardStore({ maxPlayers: 3, maxQuests: 2, maxKeys: 2 });
    await store.add('q', 'a', 30);
    await store.add('q', 'b', 20);
    await store.add('q', 'c', 10);
    await store.add('q', 'd', 15);
    expect((await store.top('q', 10)).map((row) => row.player)).toEqual(['a', 'b', 'd']);
    expect(await store.group('q')).toEqual({ totalPoints: 65, players: 3 });
    await store.add('r', 'a', 1);
    await store.add('s', 'a', 1);
    expect(await store.group('q')).toEqual({ totalPoints: 0, players: 0 });
    expect(await store.group('s')).toEqual({ totalPoints: 1, players: 1 });
    // Keys: the oldest forgotten first (k1 counts again once two newer keys came).
    await store.add('s', 'a', 1, 'k1');
    await store.add('s', 'a', 1, 'k2');
    await store.add('s', 'a', 1, 'k3');
    expect(await store.add('s', 'a', 1, 'k1')).toBe(true);
    expect(await store.add('s', 'a', 1, 'k3')).toBe(false);
  });
});
