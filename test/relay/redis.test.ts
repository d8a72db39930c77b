// Shared rate limits on a real redis-server (Debian's, started here on a free port, nothing persisted).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCounterStore, startRelay, type LogRecord, type RunningServer, type StartRelayOptions } from '../../src/relay/node/index.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { caller, uuid } from './helpers.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
// The file leaves no redis-server behind (issue 21, bug 5: a second start replaced the handle, stop() stopped nothing).
afterAll(async () => {
  await redis?.stop();
  expect(await redis.accepting()).toBe(false);
});

const relays: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

const LIMIT = 5;
async function relay(options: Partial<StartRelayOptions> = {}) {
  const logs: LogRecord[] = [];
  const running = await startRelay({
    port: 0,
    secret: SECRET,
    keySecret: KEY_SECRET,
    redis: redis.url,
    logger: (record) => logs.push(record),
    policy: { allowUnknownEvents: true, maxPointsPerAward: 100, rateLimits: { perPlayer: { limit: LIMIT, windowSeconds: 60 } } },
    upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: async () => Response.json({ success: true }) },
    ...options,
  });
  relays.push(running);
  return { running, logs, call: caller(running.url) };
}

const awardAs = (call: ReturnType<typeof caller>, jwt: string, sub: string) =>
  call('POST', '/group-quests/q1/points', {
    token: jwt,
    headers: { IDEMPOTENCY_KEY: uuid() },
    body: { serviceUserId: sub, eventPoints: 1 },
  }).then((r) => r.status);

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the idempotency record in Redis (startRelay with redis: on by default)', () => {
  it('answers a resent award from the record, shared by two relays, and refuses the key with another award (422)', async () => {
    let sent = 0;
    const upstream = {
      url: 'http://service.test',
      apiKey: API_KEY,
      fetch: async () => {
        sent++;
        return Response.json({ success: true });
      },
    };
    const [a, b] = [await relay({ upstream }), await relay({ upstream })];
    const jwt = await token({ sub: 'rec' });
    const key = uuid();
    const award = (call: ReturnType<typeof caller>, eventPoints: number) =>
      call('POST', '/group-quests/q1/points', { token: jwt, headers: { IDEMPOTENCY_KEY: key }, body: { serviceUserId: 'rec', eventPoints } });
    expect((await award(a.call, 1)).status).toBe(200);
    // Written before the first answer: the other relay answers the resend from it.
    const replay = await award(b.call, 1);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(sent).toBe(1);
    const other = await award(b.call, 2);
    expect(other.status).toBe(422);
    expect(sent).toBe(1);
  });

  it("a single award's per-player hit and its record lookup are one round trip (one script, no MGET)", async () => {
    const { call } = await relay();
    const jwt = await token({ sub: 'trips' });
    const key = uuid();
    const award = () =>
      call('POST', '/group-quests/q1/points', { token: jwt, headers: { IDEMPOTENCY_KEY: key }, body: { serviceUserId: 'trips', eventPoints: 1 } });
    const before = await commandCalls(redis.port);
    expect((await award()).status).toBe(200);
    const first = await commandCalls(redis.port);
    // The script (hit and lookup), then the record written before the answer.
    expect(delta(before, first)).toEqual({ evalsha: 1, set: 1 });
    const replay = await award();
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(delta(first, await commandCalls(redis.port))).toEqual({ evalsha: 1 });
  });

  it('is off with idempotency: false', async () => {
    let sent = 0;
    const { call } = await relay({
      idempotency: false,
      upstream: {
        url: 'http://service.test',
        apiKey: API_KEY,
        fetch: async () => {
          sent++;
          return Response.json({ success: true });
        },
      },
    });
    const jwt = await token({ sub: 'rec2' });
    const key = uuid();
    for (let i = 0; i < 2; i++) {
      await call('POST', '/group-quests/q1/points', {
        token: jwt,
        headers: { IDEMPOTENCY_KEY: key },
        body: { serviceUserId: 'rec2', eventPoints: 1 },
      });
    }
    expect(sent).toBe(2);
  });
});

describe('createRedisCounterStore', () => {
  it('counts a fixed window atomically in one round trip, shared by two clients', async () => {
    const a = await createRedisCounterStore({ url: redis.url });
    const b = await createRedisCounterStore({ url: redis.url });
    try {
      // Connected first: a hit before the first connection waits at most the command timeout (500 ms), which a
      // loaded machine can exceed; this test is about counting, not about connecting.
      await until(
        () =>
          Promise.all([a.ready!(), b.ready!()]).then(
            () => true,
            () => false,
          ),
        (ready) => ready,
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
    const store = await createRedisCounterStore({ url: redis.url });
    try {
      const key = `test:${uuid()}`;
      expect((await store.increment(key, 100)).count).toBe(1);
      expect((await store.increment(key, 100)).count).toBe(2);
      const fresh = await until(
        () => store.increment(key, 100),
        (hit) => hit.count === 1,
        2_000,
      );
      expect(fresh.count).toBe(1);
    } finally {
      await store.close!();
    }
  });

  it('refuses a missing or non-redis URL, naming the option', async () => {
    await expect(createRedisCounterStore({ url: 'http://127.0.0.1:6379' })).rejects.toThrow(/Redis URL must start with redis:\/\//);
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

describe('Redis stopped mid-test', () => {
  // Up again for whatever follows, should the test have failed while Redis was down (a no-op when it is up).
  afterAll(async () => {
    await redis.restart();
  });

  it("onStoreError 'open' allows with a warning, 'closed' answers 503; no crash, no unhandled rejection; both recover", async () => {
    const open = await relay({ onStoreError: 'open' });
    const closed = await relay({ onStoreError: 'closed' });
    const sub = `player-${uuid()}`;
    const jwt = await token({ sub });
    expect(await awardAs(open.call, jwt, sub)).toBe(200);
    expect(await awardAs(closed.call, jwt, sub)).toBe(200);

    await redis.stop();
    const whileDown = await until(
      () => awardAs(closed.call, jwt, sub),
      (status) => status === 503,
    );
    expect(whileDown).toBe(503);
    const refused = await closed.call('POST', '/group-quests/q1/points', {
      token: jwt,
      headers: { IDEMPOTENCY_KEY: uuid() },
      body: { serviceUserId: sub, eventPoints: 1 },
    });
    expect(refused.json).toEqual({ success: false, message: 'rate-limit store unavailable (rateLimits.perPlayer); try again shortly' });
    expect(refused.headers.get('retry-after')).toBe('1');
    // Open: served, not limited (more than the limit passes), and said so once in the log.
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push(await awardAs(open.call, jwt, sub));
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(open.logs.filter((r) => r.msg.startsWith('rate-limit store failed'))).toEqual([
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/onStoreError is 'open', requests are allowed without a limit$/) }),
    ]);
    expect(closed.logs.some((r) => /onStoreError is 'closed', requests are refused with 503$/.test(r.msg))).toBe(true);
    const notReady = await closed.call('GET', '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.json.message).toBe('not ready: store: Redis is not connected');
    // The batch path: every award answered retry (the SDK sends them again), not a 500.
    const batch = await closed.call('POST', '/batch/points', {
      token: jwt,
      body: { awards: [{ questId: 'q1', serviceUserId: sub, eventPoints: 1, idempotencyKey: uuid() }] },
    });
    expect(batch.status).toBe(200);
    // Named as the relay's own store, not the service ('upstream_error' would send an operator to the wrong place).
    expect(batch.json.results).toEqual([expect.objectContaining({ outcome: 'retry', reason: 'limits_unavailable', status: 503, retryAfter: 1 })]);

    await redis.restart();
    expect(
      await until(
        () => closed.call('GET', '/readyz').then((r) => r.status),
        (status) => status === 200,
      ),
    ).toBe(200);
    expect(
      await until(
        () => awardAs(closed.call, jwt, sub),
        (status) => status !== 503,
      ),
    ).not.toBe(503);
    expect(unhandled).toEqual([]);
  });
});

/** Commands Redis has run so far by name (INFO commandstats), the INFO calls themselves and the scripts' own left out. */
async function commandCalls(port: number): Promise<Record<string, number>> {
  const { stdout } = await promisify(execFile)('redis-cli', ['-p', String(port), 'INFO', 'commandstats']);
  const calls: Record<string, number> = {};
  for (const [, name, n] of stdout.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (!['info', 'incr', 'pttl', 'pexpire', 'get'].includes(name!)) calls[name!] = Number(n);
  return calls;
}

const delta = (from: Record<string, number>, to: Record<string, number>) =>
  Object.fromEntries(Object.entries(to).flatMap(([name, n]) => (n - (from[name] ?? 0) ? [[name, n - (from[name] ?? 0)]] : [])));
