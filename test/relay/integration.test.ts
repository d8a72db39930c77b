import { createServer } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResponseSchema, EnrolledUsersResponseSchema } from '../../src/protocol/index.js';
import { API_KEY, OPEN_POLICY, upstreamKey } from '../helpers/fixtures.js';
import { award, uuid } from './helpers.js';
import { secretHits, startLoopback, type Loopback } from './loopback.js';

let lb: Loopback;
beforeAll(async () => {
  lb = await startLoopback({ policy: { ...OPEN_POLICY, rateLimits: {} } });
});
afterAll(async () => {
  await lb?.close();
});

/** A loopback port nothing listens on (one that was free a moment ago). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const points = (serviceUserId: string, eventPoints: number, extra: Record<string, unknown> = {}) => ({ serviceUserId, eventPoints, ...extra });

describe('relay -> real emulator on loopback: every route proxied faithfully', () => {
  it('awards, then reads points and enrollment exactly as the service answers them', async () => {
    const player = await lb.mint({ sub: 'alice', quests: ['q1'] });
    const key = uuid();
    const first = await lb.relay.call('POST', '/group-quests/q1/points', {
      token: player,
      headers: { IDEMPOTENCY_KEY: key },
      body: points('alice', 10, { eventName: 'coin', eventDescription: 'found a coin' }),
    });
    expect([first.status, first.json]).toEqual([200, { success: true }]);
    // A replay with the same key is answered by the service's idempotency store, not applied again.
    const replay = await lb.relay.call('POST', '/group-quests/q1/points', {
      token: player,
      headers: { IDEMPOTENCY_KEY: key },
      body: points('alice', 10, { eventName: 'coin', eventDescription: 'found a coin' }),
    });
    expect(replay.status).toBe(200);

    for (const path of ['/group-quests/q1/points/alice', '/group-quests/q1/enrolled-users/alice']) {
      const viaRelay = await lb.relay.call('GET', path, { token: player });
      const direct = await lb.direct('GET', path);
      expect([viaRelay.status, viaRelay.json]).toEqual([direct.status, direct.json]);
    }
    const history = await lb.relay.call('GET', '/group-quests/q1/points/alice', { token: player });
    expect(history.json.data.totalPoints).toBe(10);
    expect(history.json.data.history).toEqual([
      { createdAt: expect.any(String), eventPoints: 10, eventName: 'coin', eventDescription: 'found a coin' },
    ]);
    const log = (await lb.requests()).filter((r) => r.method === 'POST');
    expect(log.map((r) => r.idempotencyKey)).toEqual([upstreamKey('alice', key), upstreamKey('alice', key)]);
  });

  it('passes the service errors through: not enrolled (404), unknown user identify with autoCreate on creates it', async () => {
    const bob = await lb.mint({ sub: 'bob', email: 'Bob@Example.com' });
    const enrolled = await lb.relay.call('GET', '/group-quests/q1/enrolled-users/bob', { token: bob });
    expect([enrolled.status, enrolled.json]).toEqual([404, { success: false, message: 'User is not enrolled in the quest' }]);
    const viaRelay = await lb.relay.call('POST', '/users/identify', { token: bob, body: { email: 'bob@example.com' } });
    const direct = await lb.direct('POST', '/users/identify', { body: { email: 'bob@example.com' } });
    expect(viaRelay.status).toBe(200);
    expect(viaRelay.json).toEqual(direct.json);
  });

  it('identifies a wallet the token carries', async () => {
    const wallet = { chain: 'ethereum', address: '0x52908400098527886E0F7030069857D2E4169EE7' };
    const carol = await lb.mint({ sub: 'carol', wallet });
    const viaRelay = await lb.relay.call('POST', '/users/identify', {
      token: carol,
      body: { wallet: { ...wallet, address: wallet.address.toLowerCase() } },
    });
    const direct = await lb.direct('POST', '/users/identify', { body: { wallet } });
    expect([viaRelay.status, viaRelay.json]).toEqual([200, direct.json]);
  });

  it('lists enrolled users for an admin, with the same pages', async () => {
    const admin = await lb.mint({ sub: 'ops', role: 'admin' });
    for (const u of ['u1', 'u2', 'u3']) {
      expect((await lb.relay.call('POST', '/group-quests/list-q/points', { token: admin, body: points(u, 1) })).status).toBe(200);
    }
    for (const query of ['', '?limit=2', '?limit=2&offset=2', '?limit=999']) {
      const viaRelay = await lb.relay.call('GET', `/group-quests/list-q/enrolled-users${query}`, { token: admin });
      const direct = await lb.direct('GET', `/group-quests/list-q/enrolled-users${query}`);
      expect(v.is(EnrolledUsersResponseSchema, viaRelay.json)).toBe(true);
      expect([viaRelay.status, viaRelay.json]).toEqual([direct.status, direct.json]);
    }
  });

  it('re-encodes path segments: ids with "/" or "../" reach the service as one segment', async () => {
    const admin = await lb.mint({ sub: 'ops', role: 'admin' });
    await lb.clearRequests();
    const quest = encodeURIComponent('../users/identify');
    const user = encodeURIComponent('a/b');
    expect((await lb.relay.call('POST', `/group-quests/${quest}/points`, { token: admin, body: points('a/b', 2) })).status).toBe(200);
    const read = await lb.relay.call('GET', `/group-quests/${quest}/points/${user}`, { token: admin });
    expect(read.json.data.totalPoints).toBe(2);
    expect((await lb.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /group-quests/..%2Fusers%2Fidentify/points',
      'GET /group-quests/..%2Fusers%2Fidentify/points/a%2Fb',
    ]);
  });
});

describe('batches against the emulator', () => {
  it('mixed results in order; a replayed batch is safe (each award applied once)', async () => {
    const dave = await lb.mint({ sub: 'dave' });
    // A key the service has already seen with another body: the service answers 422 for it.
    const reused = uuid();
    await lb.relay.call('POST', '/group-quests/bq/points', { token: dave, headers: { IDEMPOTENCY_KEY: reused }, body: points('dave', 3) });
    const awards = [
      award('bq', 'dave', 5),
      award('bq', 'dave', 7, { eventName: 'coin' }),
      award('bq', 'erin', 5), // not dave's
      award('bq', 'dave', 5000), // over the cap
      { ...award('bq', 'dave', 4), idempotencyKey: reused },
      award('bq2', 'dave', 1),
    ];
    const expected = [
      { outcome: 'ok' },
      { outcome: 'ok' },
      { outcome: 'rejected', status: 403, message: 'serviceUserId "erin" is not the token\'s sub: a player acts only on itself', code: 'player' },
      { outcome: 'rejected', status: 422, message: 'eventPoints 5000 exceeds policy maxPointsPerAward 1000', code: 'policy' },
      { outcome: 'rejected', status: 422, message: expect.stringContaining('IDEMPOTENCY_KEY') },
      { outcome: 'ok' },
    ];
    for (let round = 0; round < 2; round++) {
      const res = await lb.relay.call('POST', '/batch/points', { token: dave, body: { awards } });
      expect(res.status).toBe(200);
      expect(v.is(BatchResponseSchema, res.json)).toBe(true);
      expect(res.json.results).toEqual(expected.map((e, i) => ({ idempotencyKey: awards[i]!.idempotencyKey, ...e })));
    }
    const total = await lb.direct('GET', '/group-quests/bq/points/dave');
    expect(total.json.data.totalPoints).toBe(3 + 5 + 7);
    expect((await lb.direct('GET', '/group-quests/bq2/points/dave')).json.data.totalPoints).toBe(1);
  });

  it('a lost acknowledgement is retried by the relay with the same key: applied once, answered ok', async () => {
    const frank = await lb.mint({ sub: 'frank' });
    await lb.admin('PUT', '/faults', { lostAckRate: 1, lostAckMode: '503', seed: 1 });
    await lb.clearRequests();
    try {
      const one = award('lost', 'frank', 9);
      const res = await lb.relay.call('POST', '/batch/points', { token: frank, body: { awards: [one] } });
      expect(res.json.results).toEqual([{ idempotencyKey: one.idempotencyKey, outcome: 'ok' }]);
      const sent = await lb.requests();
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(new Set(sent.map((r) => r.idempotencyKey))).toEqual(new Set([upstreamKey('frank', one.idempotencyKey)]));
    } finally {
      await lb.admin('PUT', '/faults', {});
    }
    expect((await lb.direct('GET', '/group-quests/lost/points/frank')).json.data.totalPoints).toBe(9);
  });

  it('service errors become retry results, then a replay settles them', async () => {
    const gina = await lb.mint({ sub: 'gina' });
    const awards = [award('eq', 'gina', 1), award('eq', 'gina', 2)];
    await lb.admin('PUT', '/faults', { errorRate: 1, errorStatuses: [503], retryAfterSeconds: 3, seed: 7 });
    let res: Awaited<ReturnType<Loopback['relay']['call']>>;
    try {
      res = await lb.relay.call('POST', '/batch/points', { token: gina, body: { awards } });
    } finally {
      await lb.admin('PUT', '/faults', {});
    }
    // The second award is held back unsent: sent after a failed first, it would land before it (award order).
    expect(
      res.json.results.map((r: { outcome: string; status?: number; retryAfter?: number; reason: string }) => [
        r.outcome,
        r.reason,
        r.status,
        r.retryAfter,
      ]),
    ).toEqual([
      ['retry', 'upstream_error', 503, 3],
      ['retry', 'earlier_award_pending', undefined, undefined],
    ]);
    const replay = await lb.relay.call('POST', '/batch/points', { token: gina, body: { awards } });
    expect(replay.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok']);
    expect((await lb.direct('GET', '/group-quests/eq/points/gina')).json.data.totalPoints).toBe(3);
  });
});

describe('upstream outages, over real sockets', () => {
  it('a wrong API key -> 502 without the key; an unreachable service -> 502; batch -> retry upstream_auth', async () => {
    const wrongKey = 'qp_wrong_key_that_must_not_leak_123456';
    const wrong = await lb.relayOn({ upstream: { url: lb.emulator.url, apiKey: wrongKey } });
    const hana = await lb.mint({ sub: 'hana' });
    const res = await wrong.call('GET', '/group-quests/q1/points/hana', { token: hana });
    expect([res.status, res.json.message]).toEqual([502, "Quest Points Service refused the relay's API key (check QP_API_KEY)"]);
    const batch = await wrong.call('POST', '/batch/points', { token: hana, body: { awards: [award('q1', 'hana', 1)] } });
    expect(batch.json.results[0]).toMatchObject({ outcome: 'retry', reason: 'upstream_auth' });
    expect(JSON.stringify([res.text, batch.text, lb.logs])).not.toContain(wrongKey);

    const dead = await lb.relayOn({ upstream: { url: `http://127.0.0.1:${await closedPort()}`, apiKey: API_KEY, retries: 1, retryDelayMs: 1 } });
    const down = await dead.call('POST', '/group-quests/q1/points', { token: hana, headers: { IDEMPOTENCY_KEY: uuid() }, body: points('hana', 1) });
    expect([down.status, down.json.message]).toEqual([502, 'Quest Points Service unreachable (ECONNREFUSED)']);
  });

  it('a slow service -> 504 after the relay timeout', async () => {
    const slow = await lb.relayOn({ upstream: { url: lb.emulator.url, apiKey: API_KEY, timeoutMs: 100 } });
    const ivan = await lb.mint({ sub: 'ivan' });
    await lb.admin('PUT', '/faults', { latencyMs: 400 });
    try {
      const res = await slow.call('GET', '/group-quests/q1/points/ivan', { token: ivan });
      expect([res.status, res.json.message]).toEqual([504, 'Quest Points Service did not answer within 100 ms']);
    } finally {
      await lb.admin('PUT', '/faults', {});
    }
  });
});

describe('secrets', () => {
  it('no response or log line of this suite carries the API key, the secret or a token', () => {
    expect(lb.transcript().length).toBeGreaterThan(40);
    expect(secretHits(lb)).toEqual([]);
  });
});
