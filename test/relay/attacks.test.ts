import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signPlayerToken } from '../../src/relay/index.js';
import { BODY_LIMIT_BYTES } from '../../src/protocol/index.js';
import { OTHER_SECRET, SECRET } from '../helpers/fixtures.js';
import { award, uuid } from './helpers.js';
import { secretHits, startLoopback, type Loopback } from './loopback.js';

// Each attack is refused with the right status and NOTHING reaches the service: the emulator's request log
// is emptied before each case and must still be empty after it.

const GAME = 'https://game.example.com';
const POLICY = {
  quests: ['q1'],
  maxPointsPerAward: 100,
  events: { coin: { maxPoints: 10 }, level_complete: { points: 50 }, DefaultPointsEvent: { maxPoints: 1000 } },
  rateLimits: { perPlayer: { limit: 1000, windowSeconds: 60 } },
};

let lb: Loopback;
let alice: string;
beforeAll(async () => {
  lb = await startLoopback({ policy: POLICY, corsOrigins: [GAME] });
  alice = await lb.mint({ sub: 'alice', quests: ['q1'], email: 'alice@example.com' });
});
afterAll(async () => {
  await lb?.close();
});
beforeEach(async () => {
  await lb.clearRequests();
});

async function expectNothingSent() {
  expect(await lb.requests()).toEqual([]);
}

const awardBody = (serviceUserId: string, eventPoints: unknown, extra: Record<string, unknown> = {}) => ({ serviceUserId, eventPoints, ...extra });
const postAward = (token: string | undefined, body: unknown, quest = 'q1', headers: Record<string, string> = {}) =>
  lb.relay.call('POST', `/group-quests/${quest}/points`, { ...(token ? { token } : {}), body, headers });

describe('attack suite: refused, and nothing reaches the service', () => {
  it('forged signature -> 401', async () => {
    const forged = await signPlayerToken({ sub: 'alice', role: 'admin' }, { secret: OTHER_SECRET });
    lb.tokens.push(forged);
    const res = await postAward(forged, awardBody('alice', 5));
    expect([res.status, res.json.message]).toEqual([401, 'token signature invalid']);
    await expectNothingSent();
  });

  it('alg: none -> 401', async () => {
    const none = new UnsecuredJWT({ role: 'admin' }).setSubject('alice').setExpirationTime('5m').encode();
    lb.tokens.push(none);
    const res = await postAward(none, awardBody('alice', 5));
    expect(res.status).toBe(401);
    expect(res.json.success).toBe(false);
    await expectNothingSent();
  });

  it('a token signed with another algorithm (HS512, same secret) -> 401', async () => {
    const hs512 = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));
    lb.tokens.push(hs512);
    const res = await postAward(hs512, awardBody('alice', 5));
    expect([res.status, res.json.message]).toEqual([401, 'token algorithm not allowed (only HS256)']);
    await expectNothingSent();
  });

  it('expired token -> 401', async () => {
    const expired = await lb.mint({ sub: 'alice' }, -60);
    const res = await postAward(expired, awardBody('alice', 5));
    expect([res.status, res.json.message]).toEqual([401, 'token expired']);
    await expectNothingSent();
  });

  it('missing or malformed Authorization -> 401', async () => {
    expect((await postAward(undefined, awardBody('alice', 5))).status).toBe(401);
    const garbage = await lb.relay.call('POST', '/group-quests/q1/points', {
      headers: { authorization: `Bearer ${alice}.extra` },
      body: awardBody('alice', 5),
    });
    expect(garbage.status).toBe(401);
    await expectNothingSent();
  });

  it('player A awarding to, reading and batch-awarding for player B -> 403', async () => {
    const award403 = await postAward(alice, awardBody('bob', 5));
    expect([award403.status, award403.json.message]).toEqual([403, 'serviceUserId "bob" is not the token\'s sub: a player acts only on itself']);
    expect((await lb.relay.call('GET', '/group-quests/q1/points/bob', { token: alice })).status).toBe(403);
    expect((await lb.relay.call('GET', '/group-quests/q1/enrolled-users/bob', { token: alice })).status).toBe(403);
    const batch = await lb.relay.call('POST', '/batch/points', { token: alice, body: { awards: [award('q1', 'bob', 5)] } });
    expect(batch.json.results[0]).toMatchObject({ outcome: 'rejected', status: 403 });
    await expectNothingSent();
  });

  it("identifying someone else's e-mail -> 403", async () => {
    const res = await lb.relay.call('POST', '/users/identify', { token: alice, body: { email: 'bob@example.com' } });
    expect([res.status, res.json.message]).toEqual([403, "email is not the token's email: a player identifies only itself"]);
    await expectNothingSent();
  });

  it('a player listing enrolled users -> 403', async () => {
    const res = await lb.relay.call('GET', '/group-quests/q1/enrolled-users', { token: alice });
    expect([res.status, res.json.message]).toEqual([403, 'listing enrolled users needs an admin token (the list carries e-mails)']);
    await expectNothingSent();
  });

  it('a quest outside the token or the policy -> 403', async () => {
    expect((await postAward(alice, awardBody('alice', 5), 'q2')).status).toBe(403);
    const admin = await lb.mint({ sub: 'ops', role: 'admin' });
    expect((await postAward(admin, awardBody('alice', 5), 'q2')).json.message).toBe('questId "q2" is not in policy quests');
    await expectNothingSent();
  });

  it('unknown event -> 422', async () => {
    const res = await postAward(alice, awardBody('alice', 5, { eventName: 'hack' }));
    expect([res.status, res.json.message]).toEqual([422, 'eventName "hack" is not in policy events (policy allowUnknownEvents is false)']);
    await expectNothingSent();
  });

  it('points over the cap, over the event maximum, or not the fixed amount -> 422', async () => {
    expect((await postAward(alice, awardBody('alice', 500))).json).toEqual({
      success: false,
      message: 'eventPoints 500 exceeds policy maxPointsPerAward 100',
      code: 'policy',
    });
    expect((await postAward(alice, awardBody('alice', 11, { eventName: 'coin' }))).json.message).toBe(
      'eventPoints 11 exceeds policy events.coin.maxPoints 10',
    );
    const fixed = await postAward(alice, awardBody('alice', 5000, { eventName: 'level_complete' }));
    expect([fixed.status, fixed.json.message]).toEqual([422, 'eventPoints 5000 does not match policy events.level_complete.points 50']);
    await expectNothingSent();
  });

  it('negative, zero, NaN, Infinity and string points -> 422 / 400', async () => {
    const cases: [string, number, string][] = [
      [
        '{"serviceUserId":"alice","eventPoints":-5}',
        422,
        'eventPoints -5 is negative and policy events.DefaultPointsEvent.allowNegative does not allow negatives',
      ],
      ['{"serviceUserId":"alice","eventPoints":0}', 422, 'eventPoints 0 is refused: an award must carry points'],
      [
        '{"serviceUserId":"alice","eventPoints":5e-324}',
        422,
        "eventPoints 5e-324 rounds to 0 at the service's 6 decimal places: an award must carry points",
      ],
      ['{"serviceUserId":"alice","eventPoints":NaN}', 400, 'body must be valid JSON'],
      ['{"serviceUserId":"alice","eventPoints":"NaN"}', 400, 'eventPoints must be a number'],
      ['{"serviceUserId":"alice","eventPoints":1e999}', 400, 'eventPoints must be a finite number'],
      ['{"serviceUserId":"alice","eventPoints":"5"}', 400, 'eventPoints must be a number'],
    ];
    for (const [raw, status, message] of cases) {
      const res = await lb.relay.call('POST', '/group-quests/q1/points', { token: alice, raw, headers: { 'content-type': 'application/json' } });
      expect([res.status, res.json.message]).toEqual([status, message]);
    }
    const batch = await lb.relay.call('POST', '/batch/points', {
      token: alice,
      body: { awards: [award('q1', 'alice', -1), award('q1', 'alice', 'NaN'), award('q1', 'alice', null)] },
    });
    expect(batch.json.results.map((r: { status: number }) => r.status)).toEqual([422, 400, 400]);
    await expectNothingSent();
  });

  it('path injection in questId and serviceUserId -> refused, the service path never changes', async () => {
    const injected = [
      ['POST', `/group-quests/${encodeURIComponent('../users/identify')}/points`, 403],
      ['POST', `/group-quests/${encodeURIComponent('q1/points/bob')}/points`, 403],
      ['GET', `/group-quests/q1/points/${encodeURIComponent('../../users/identify')}`, 403],
      ['GET', `/group-quests/q1/enrolled-users/${encodeURIComponent('bob/../alice')}`, 403],
      ['GET', `/group-quests/${encodeURIComponent('q1/enrolled-users')}/enrolled-users/alice`, 403],
      // Dot segments are resolved by URL parsing before routing: the request no longer matches a route.
      ['GET', '/group-quests/q1/points/%2e%2e/%2e%2e/users/identify', 404],
    ] as const;
    for (const [method, path, status] of injected) {
      const res = await lb.relay.call(method, path, { token: alice, ...(method === 'POST' ? { body: awardBody('alice', 5) } : {}) });
      expect([path, res.status]).toEqual([path, status]);
    }
    const batch = await lb.relay.call('POST', '/batch/points', {
      token: alice,
      body: { awards: [award('..', 'alice', 5), award('.', 'alice', 5), award('q1/../q2', 'alice', 5)] },
    });
    expect(batch.json.results.map((r: { outcome: string; status: number }) => [r.outcome, r.status])).toEqual([
      ['rejected', 400],
      ['rejected', 400],
      ['rejected', 403],
    ]);
    await expectNothingSent();
  });

  it('oversized body -> 413', async () => {
    const res = await postAward(alice, awardBody('alice', 5, { eventDescription: 'x'.repeat(BODY_LIMIT_BYTES + 1) }));
    expect([res.status, res.json.message]).toEqual([413, `body must be at most ${BODY_LIMIT_BYTES} bytes`]);
    await expectNothingSent();
  });

  it('wrong content-type -> 400, as the emulator answers', async () => {
    const res = await lb.relay.call('POST', '/group-quests/q1/points', {
      token: alice,
      raw: JSON.stringify(awardBody('alice', 5)),
      headers: { 'content-type': 'text/plain' },
    });
    expect([res.status, res.json.message]).toEqual([400, 'Content-Type header must be application/json']);
    await expectNothingSent();
  });

  it('disallowed origin -> 403, preflight included', async () => {
    const res = await postAward(alice, awardBody('alice', 5), 'q1', { origin: 'https://evil.example' });
    expect([res.status, res.headers.get('access-control-allow-origin')]).toEqual([403, null]);
    const preflight = await lb.relay.call('OPTIONS', '/group-quests/q1/points', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    await expectNothingSent();
  });

  it('rate-limit burst -> 429 with Retry-After; only the allowed awards reach the service', async () => {
    const burst = await lb.relayOn({ policy: { ...POLICY, rateLimits: { perPlayer: { limit: 3, windowSeconds: 60 } } } });
    const res = await Promise.all(
      Array.from({ length: 10 }, () =>
        burst.call('POST', '/group-quests/q1/points', {
          token: alice,
          headers: { IDEMPOTENCY_KEY: uuid() },
          body: awardBody('alice', 1, { eventName: 'coin' }),
        }),
      ),
    );
    const statuses = res.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    for (const r of res.filter((r) => r.status === 429)) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.json.message).toBe('rate limit exceeded: policy rateLimits.perPlayer allows 3 per 60 s');
    }
    expect((await lb.requests()).length).toBe(3);
  });

  it('per-IP burst -> 429 before authentication is even tried', async () => {
    const burst = await lb.relayOn({ policy: { ...POLICY, rateLimits: { perIp: { limit: 5, windowSeconds: 60 } } } });
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await burst.call('GET', '/group-quests/q1/points/alice', { token: alice })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect((await lb.requests()).length).toBe(5);
  });
});

describe('secrets', () => {
  it('no response or log line of the attack suite carries the API key, the secret or any token', () => {
    expect(lb.tokens.length).toBeGreaterThan(5);
    expect(lb.transcript().length).toBeGreaterThan(60);
    expect(secretHits(lb)).toEqual([]);
  });
});
