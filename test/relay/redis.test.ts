// Shared rate limits on a real redis-server (Debian's, started here on a free port, nothing persisted).
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCounterStore } from '../../src/relay/node/index.js';
import { encodeRecord, fingerprintOf, recordKey } from '../../src/relay/records.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { token, upstreamKey } from '../helpers/fixtures.js';
import { uuid } from './helpers.js';
import { economyRedisSuite } from './economy-redis-suite.js';
import { awardAs, countingUpstream, LIMIT, redisSuite, relayFactory } from './redis-suite.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
// The file leaves no redis-server behind (issue 21, bug 5: a second start replaced the handle, stop() stopped nothing).
afterAll(async () => {
  await redis?.stop();
  expect(await redis.accepting()).toBe(false);
});

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

redisSuite(() => ({ url: redis.url, ports: [redis.port] }));
economyRedisSuite(() => ({ url: redis.url, ports: [redis.port] }));
const relay = relayFactory(() => ({ url: redis.url, ports: [redis.port] }));

describe('keys on one Redis', () => {
  it('refuses a missing or non-redis URL, and a prefix with braces (it would replace the hash tags), naming the option', async () => {
    await expect(createRedisCounterStore({ url: 'http://127.0.0.1:6379' })).rejects.toThrow(/Redis URL must start with redis:\/\//);
    await expect(createRedisCounterStore({ url: redis.url, prefix: 'game{1}:' })).rejects.toThrow(/must not contain \{ or \}/);
  });

  it("are readable and carry the player's hash tag: qp:rl:perPlayer:{sub}, qp:idem:{sub}:<upstream key>", async () => {
    const { call } = await relay();
    const sub = `tag-${uuid()}`;
    const key = uuid();
    expect(await awardAs(call, await token({ sub }), sub, key)).toBe(200);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      expect(await client.keys(`*${sub}*`)).toEqual(
        expect.arrayContaining([`qp:rl:perPlayer:{${sub}}`, `qp:idem:{${sub}}:${upstreamKey(sub, key)}`]),
      );
    } finally {
      await client.close();
    }
  });

  it('a record written before the hash tags (qp:idem:<upstream key>) still answers the resend: no record is lost by the upgrade', async () => {
    const upstream = countingUpstream();
    const { call } = await relay({ upstream });
    const sub = `legacy-${uuid()}`;
    const key = uuid();
    const jwt = await token({ sub });
    // As the relay before this version wrote it: the award { q1, sub, 1 } acknowledged with 200.
    const before = encodeRecord(fingerprintOf('q1', { serviceUserId: sub, eventPoints: 1 }), 200);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await client.set(recordKey(upstreamKey(sub, key)), before, { PX: 60_000 });
    } finally {
      await client.close();
    }
    // The single route (one script with the hit) and the batch route (one MGET) both read it.
    expect(await awardAs(call, jwt, sub, key)).toBe(200);
    const batch = await call('POST', '/batch/points', {
      token: jwt,
      body: { awards: [{ questId: 'q1', serviceUserId: sub, eventPoints: 1, idempotencyKey: key }] },
    });
    expect(batch.json.results).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    expect(upstream.sent).toBe(0);
  });
});

/** The last value probed: done, or at the timeout (the test's expect then says what it was). */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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
