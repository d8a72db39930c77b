// The relay's Redis tests, run on one redis-server (redis.test.ts) and on a real 3-master, 3-replica Redis Cluster
// (redis-cluster.test.ts): the same relay, the same store, only the URL differs. On a cluster every multi-key script
// and MGET must stay in one slot (the keys' hash tags), or Redis answers CROSSSLOT.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisCounterStore, startRelay, type LogRecord, type RunningServer, type StartRelayOptions } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { caller, uuid } from './helpers.js';

/** Where the suite runs: the URL the relay is given and the ports of every server (for INFO commandstats). */
export interface RedisUnderTest {
  url: string;
  ports: number[];
}

/** A Redis counter store on `url`, once it answers (it connects in the background). */
export async function readyStore(url: string) {
  const store = await createRedisCounterStore({ url });
  await until(
    () =>
      store.ready!().then(
        () => true,
        () => false,
      ),
    'the store to connect',
  );
  return store;
}

export const LIMIT = 5;

/** Relays started by a test, closed after it. */
export function relayFactory(target: () => RedisUnderTest) {
  const relays: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.close()));
  });
  return async function relay(options: Partial<StartRelayOptions> = {}) {
    const logs: LogRecord[] = [];
    const running = await startRelay({
      port: 0,
      secret: SECRET,
      keySecret: KEY_SECRET,
      redis: target().url,
      // These tests count the award's own round trips; the ledger's append (one script per tick, after the answer)
      // is counted in ledger-redis.test.ts.
      ledger: false,
      logger: (record) => logs.push(record),
      policy: { allowUnknownEvents: true, maxPointsPerAward: 100, rateLimits: { perPlayer: { limit: LIMIT, windowSeconds: 60 } } },
      upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: async () => Response.json({ success: true }) },
      ...options,
    });
    relays.push(running);
    return { running, logs, call: caller(running.url) };
  };
}

export const awardAs = (call: ReturnType<typeof caller>, jwt: string, sub: string, key = uuid()) =>
  call('POST', '/group-quests/q1/points', {
    token: jwt,
    headers: { IDEMPOTENCY_KEY: key },
    body: { serviceUserId: sub, eventPoints: 1 },
  }).then((r) => r.status);

/** An upstream that counts the awards that reach it (not /readyz's probes). */
export function countingUpstream() {
  const upstream = {
    sent: 0,
    url: 'http://service.test',
    apiKey: API_KEY,
    fetch: async (request: Request) => {
      if (request.method === 'POST') upstream.sent++;
      return Response.json({ success: true });
    },
  };
  return upstream;
}

/** The suite: records, one round trip, counters, two relays sharing a limit. */
export function redisSuite(target: () => RedisUnderTest) {
  const relay = relayFactory(target);

  describe('the idempotency record in Redis (startRelay with redis: on by default)', () => {
    it('answers a resent award from the record, shared by two relays, and refuses the key with another award (422)', async () => {
      const upstream = countingUpstream();
      const [a, b] = [await relay({ upstream }), await relay({ upstream })];
      const jwt = await token({ sub: 'rec' });
      const key = uuid();
      const award = (call: ReturnType<typeof caller>, eventPoints: number) =>
        call('POST', '/group-quests/q1/points', { token: jwt, headers: { IDEMPOTENCY_KEY: key }, body: { serviceUserId: 'rec', eventPoints } });
      expect((await award(a.call, 1)).status).toBe(200);
      // Written before the first answer: the other relay answers the resend from it.
      const replay = await award(b.call, 1);
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(upstream.sent).toBe(1);
      const other = await award(b.call, 2);
      expect(other.status).toBe(422);
      expect(upstream.sent).toBe(1);
    });

    it('a batch of several awards is looked up in one read and answered from the record by another relay', async () => {
      const upstream = countingUpstream();
      const [a, b] = [await relay({ upstream }), await relay({ upstream })];
      const jwt = await token({ sub: 'batcher' });
      // Two of each: the four hits stay within the per-player limit (5).
      const awards = Array.from({ length: 2 }, (_, i) => ({ questId: 'q1', serviceUserId: 'batcher', eventPoints: i + 1, idempotencyKey: uuid() }));
      const first = await a.call('POST', '/batch/points', { token: jwt, body: { awards } });
      expect(first.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok']);
      const before = await commandCalls(target().ports);
      const again = await b.call('POST', '/batch/points', { token: jwt, body: { awards } });
      expect(again.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok']);
      expect(upstream.sent).toBe(2);
      // Both keys in one MGET (one slot on a cluster), beside one per-player hit per award.
      expect(delta(before, await commandCalls(target().ports))).toEqual({ evalsha: 2, mget: 1 });
    });

    it("a single award's per-player hit and its record lookup are one round trip (one script, no MGET)", async () => {
      const { call } = await relay();
      const jwt = await token({ sub: 'trips' });
      // The script loaded on the player's node first (a node that never ran it answers NOSCRIPT once, then EVAL).
      expect(await awardAs(call, jwt, 'trips')).toBe(200);
      const key = uuid();
      const award = () =>
        call('POST', '/group-quests/q1/points', { token: jwt, headers: { IDEMPOTENCY_KEY: key }, body: { serviceUserId: 'trips', eventPoints: 1 } });
      const ports = target().ports;
      const before = await commandCalls(ports);
      expect((await award()).status).toBe(200);
      const first = await commandCalls(ports);
      // The script (hit and lookup), then the record written before the answer.
      expect(delta(before, first)).toEqual({ evalsha: 1, set: 1 });
      const replay = await award();
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(delta(first, await commandCalls(ports))).toEqual({ evalsha: 1 });
    });

    it('is off with idempotency: false', async () => {
      const upstream = countingUpstream();
      const { call } = await relay({ idempotency: false, upstream });
      const jwt = await token({ sub: 'rec2' });
      const key = uuid();
      for (let i = 0; i < 2; i++) await awardAs(call, jwt, 'rec2', key);
      expect(upstream.sent).toBe(2);
    });
  });

  describe('createRedisCounterStore', () => {
    it('counts a fixed window atomically in one round trip, shared by two clients', async () => {
      const a = await createRedisCounterStore({ url: target().url });
      const b = await createRedisCounterStore({ url: target().url });
      try {
        // Connected first: a hit before the first connection waits at most the command timeout (500 ms), which a
        // loaded machine can exceed; this test is about counting, not about connecting.
        await until(
          () =>
            Promise.all([a.ready!(), b.ready!()]).then(
              () => true,
              () => false,
            ),
          'both stores to connect',
        );
        const key = `test:${uuid()}`;
        const hits = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).increment(key, 5_000)));
        expect(hits.map((hit) => hit.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        for (const hit of hits) {
          expect(hit.resetInMs).toBeGreaterThan(0);
          expect(hit.resetInMs).toBeLessThanOrEqual(5_000);
        }
        await expect(a.ready!()).resolves.toBeUndefined();
      } finally {
        await a.close!();
        await b.close!();
      }
    });

    it('starts a new window once the old one expired', async () => {
      const store = await readyStore(target().url);
      try {
        const key = `test:${uuid()}`;
        expect((await store.increment(key, 100)).count).toBe(1);
        expect((await store.increment(key, 100)).count).toBe(2);
        await until(() => store.increment(key, 100).then((hit) => hit.count === 1), 'a fresh window', 2_000, 20);
      } finally {
        await store.close!();
      }
    });
  });

  describe('two relay instances on one Redis', () => {
    it('share one per-player limit exactly: of 20 awards split across both, 5 pass', async () => {
      const [one, two] = await Promise.all([relay(), relay()]);
      const sub = `player-${uuid()}`;
      const jwt = await token({ sub });
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => awardAs(i % 2 ? one.call : two.call, jwt, sub)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20 - LIMIT);
      // One after the other, alternating instances: the same count.
      const other = `player-${uuid()}`;
      const jwt2 = await token({ sub: other });
      const sequential: number[] = [];
      for (let i = 0; i < 8; i++) sequential.push(await awardAs(i % 2 ? one.call : two.call, jwt2, other));
      expect(sequential).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      const readyz = await one.call('GET', '/readyz');
      expect([readyz.status, readyz.json]).toEqual([200, { success: true, data: { service: 'ok', store: 'ok' } }]);
    });
  });
}

/** Commands the servers have run so far by name (INFO commandstats, summed), INFO and the scripts' own left out. */
export async function commandCalls(ports: number[]): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  for (const port of ports) {
    const { stdout } = await promisify(execFile)('redis-cli', ['-p', String(port), 'INFO', 'commandstats']);
    for (const [, name, n] of stdout.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      if (!['info', 'incr', 'pttl', 'pexpire', 'get', 'exists', 'ping', 'cluster', 'replconf', 'psync', 'client'].includes(name!))
        calls[name!] = (calls[name!] ?? 0) + Number(n);
  }
  return calls;
}

export const delta = (from: Record<string, number>, to: Record<string, number>) =>
  Object.fromEntries(Object.entries(to).flatMap(([name, n]) => (n - (from[name] ?? 0) ? [[name, n - (from[name] ?? 0)]] : [])));
