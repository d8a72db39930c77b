// Reconciliation over real sockets: the emulator served on 127.0.0.1, seeded with enrolled players and totals (its
// admin seed, i.e. awards the relay never saw), and relays whose reconciler walks its list. 10,000 players reach the
// board in bounded time; a stopped relay's successor resumes from the cursor; two relays never reconcile one quest at
// once (the lease, in memory and in Redis); an award made at the service directly shows after a pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { buildRelay } from '../../src/relay/app.js';
import {
  createMemoryLeaderboardStore,
  createMemoryLedgerStore,
  type LeaderboardReconcileOptions,
  type LeaderboardStore,
} from '../../src/relay/index.js';
import { createRedisCounterStore } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET } from '../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startStack } from '../helpers/stack.js';
import { caller } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ host: '127.0.0.1', port: 0, admin: true, apiKeys: [API_KEY] });
});
afterAll(async () => {
  await emulator?.close();
});

async function seed(questId: string, players: number, points: (i: number) => number) {
  const enrollments = Array.from({ length: players }, (_, i) => ({ questId, serviceUserId: `p${i}`, points: points(i) }));
  const answer = await fetch(`${emulator.url}/__emulator/seed`, { method: 'POST', body: JSON.stringify({ enrollments }) });
  expect(answer.status).toBe(200);
}

/** A relay whose reconciler runs no pass of its own (no quests): the test calls pass(). */
function relay(store: LeaderboardStore, reconcile: Partial<LeaderboardReconcileOptions> = {}) {
  const built = buildRelay({
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: OPEN_POLICY,
    logger: () => {},
    upstream: { url: emulator.url, apiKey: API_KEY, retryDelayMs: 1 },
    ledger: { store: createMemoryLedgerStore() },
    leaderboard: { store, reconcile: { quests: [], concurrency: 8, callsPerSecond: 100_000, ...reconcile } },
  });
  const reconciler = built.leaderboard?.reconciler;
  if (!reconciler) throw new Error('no reconciler');
  return { reconciler, stop: () => built.leaderboard?.stop() };
}

describe('leaderboard reconciliation with the service', () => {
  it('sets 10,000 enrolled players to their service totals: 40 pages + 10,000 totals', async () => {
    await seed('big', 10_000, (i) => i % 500);
    const store = createMemoryLeaderboardStore();
    const { reconciler, stop } = relay(store);
    const started = performance.now();
    const report = await reconciler.pass('big');
    const seconds = (performance.now() - started) / 1000;
    stop();
    expect(report).toEqual({ players: 10_000, raced: 0, calls: 10_040, skipped: false, complete: true });
    expect(await store.group('big')).toEqual({ players: 10_000, totalPoints: (20 * (499 * 500)) / 2 });
    expect((await store.top('big', 1))[0]?.points).toBe(499);
    expect(await store.cursor('big')).toBeUndefined();
    console.info(`reconcile: 10,000 players, ${report.calls} service calls, ${seconds.toFixed(2)} s`);
    expect(seconds).toBeLessThan(15);
  }, 30_000);

  it('resumes from the cursor after a restart, and counts an award made at the service directly', async () => {
    await seed('resume', 1000, () => 1);
    const store = createMemoryLeaderboardStore();
    const first = relay(store, { callsPerSecond: 2000 });
    const running = first.reconciler.pass('resume');
    // Stopped once past the first page (250 players): the cursor names where it stopped.
    await expect.poll(async () => (await store.group('resume')).players, { timeout: 10_000 }).toBeGreaterThan(300);
    await first.reconciler.stop();
    const stopped = await running;
    expect(stopped.complete).toBe(false);
    const cursor = await store.cursor('resume');
    expect(cursor).toBeGreaterThanOrEqual(250);
    // Awards the relay never sees, made at the service: one past the cursor, one before it.
    await fetch(`${emulator.url}/__emulator/seed`, {
      method: 'POST',
      body: JSON.stringify({ enrollments: ['p0', 'p999'].map((serviceUserId) => ({ questId: 'resume', serviceUserId, points: 41 })) }),
    });
    const second = relay(store);
    const resumed = await second.reconciler.pass('resume');
    expect(resumed.complete).toBe(true);
    // Only what was left, not all 1000 again; the award past the cursor counts now, the one before it next pass.
    expect(resumed.players).toBe(1000 - (cursor as number));
    expect((await store.around('resume', 'p999', 0)).you?.points).toBe(42);
    expect((await store.around('resume', 'p0', 0)).you?.points).toBe(1);
    expect(await store.group('resume')).toEqual({ players: 1000, totalPoints: 1041 });
    // A finished pass left no cursor: the next starts at the top of the list.
    expect((await second.reconciler.pass('resume')).players).toBe(1000);
    second.stop();
    expect((await store.around('resume', 'p0', 0)).you?.points).toBe(42);
    expect(await store.group('resume')).toEqual({ players: 1000, totalPoints: 1082 });
  }, 30_000);
});

describe('reconciliation in the background', () => {
  it('passes over the configured quests every everyMs: an award at the service reaches the board', async () => {
    await seed('auto', 3, () => 10);
    const store = createMemoryLeaderboardStore();
    const { stop } = relay(store, { quests: ['auto'], everyMs: 50 });
    try {
      await expect.poll(() => store.group('auto'), { timeout: 10_000 }).toEqual({ players: 3, totalPoints: 30 });
      await seed('auto', 1, () => 5);
      await expect.poll(() => store.group('auto'), { timeout: 10_000 }).toEqual({ players: 3, totalPoints: 35 });
      expect((await store.top('auto', 1))[0]).toEqual({ player: 'p0', rank: 1, points: 15 });
    } finally {
      stop();
    }
  });
});

describe('startRelay reconciles its own board', () => {
  it('with `reconcile`: awards seeded at the service are on the route, for a player', async () => {
    const stack = await startStack({ relayOptions: { reconcile: { quests: ['served'], everyMs: 50, callsPerSecond: 1000 } } });
    try {
      await stack.admin('POST', '/seed', { enrollments: [{ questId: 'served', serviceUserId: 'ann', points: 12 }] });
      const read = async () => (await caller(stack.relay.url)('GET', '/group-quests/served/leaderboard', { token: await stack.token('ann') })).json;
      await expect.poll(async () => (await read())?.data?.group, { timeout: 10_000 }).toEqual({ totalPoints: 12, players: 1 });
      expect((await read()).data.you).toEqual({ rank: 1, points: 12 });
    } finally {
      await stack.close();
    }
  });
});

describe('the reconciliation lease: one relay at a time', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
    await seed('leased', 600, (i) => i);
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });

  const stores = async (): Promise<[LeaderboardStore, LeaderboardStore, () => Promise<void>][]> => {
    const memory = createMemoryLeaderboardStore();
    const a = await createRedisCounterStore({ url: redis.url });
    const b = await createRedisCounterStore({ url: redis.url });
    return [
      [memory, memory, async () => {}],
      [a.leaderboard, b.leaderboard, async () => void (await Promise.all([a.close?.(), b.close?.()]))],
    ];
  };

  it('never overwrites a score the feed moved while the service was asked (set with the score read before)', async () => {
    for (const [store, , close] of await stores()) {
      const quest = `race-${crypto.randomUUID().slice(0, 8)}`;
      await store.add(quest, 'ann', 10);
      const before = (await store.score?.(quest, 'ann')) ?? null;
      // The pass read 10 and asked the service (which says 10); meanwhile an award through the relay moves ann to 15.
      await store.add(quest, 'ann', 5);
      expect(await store.set?.(quest, 'ann', 10, before)).toBe(false);
      expect(await store.group(quest)).toEqual({ players: 1, totalPoints: 15 });
      // Not on the board when read (null): a newcomer set meanwhile by the feed is left too; else set.
      await store.add(quest, 'bob', 3);
      expect(await store.set?.(quest, 'bob', 1, null)).toBe(false);
      expect(await store.set?.(quest, 'cat', 7, null)).toBe(true);
      expect(await store.set?.(quest, 'ann', 20, 15)).toBe(true);
      expect(await store.group(quest)).toEqual({ players: 3, totalPoints: 30 });
      await close();
    }
  });

  it('lets one of two relays reconcile a quest; the other skips it; the next pass may take it', async () => {
    for (const [storeA, storeB, close] of await stores()) {
      const one = relay(storeA, { callsPerSecond: 5000 });
      const two = relay(storeB, { callsPerSecond: 5000 });
      const reports = await Promise.all([one.reconciler.pass('leased'), two.reconciler.pass('leased')]);
      expect(reports.map((r) => r.skipped).sort()).toEqual([false, true]);
      expect(reports.find((r) => !r.skipped)).toMatchObject({ players: 600, complete: true });
      expect(await storeA.group('leased')).toEqual({ players: 600, totalPoints: (599 * 600) / 2 });
      // Released at the end of the pass: the other relay can take the next one.
      expect((await two.reconciler.pass('leased')).skipped).toBe(false);
      one.stop();
      two.stop();
      await close();
    }
  }, 30_000);
});
