import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { BatchResponseSchema } from '../../src/protocol/index.js';
import { token, upstreamKey } from '../helpers/fixtures.js';
import { award, fakeRelay } from './helpers.js';

const error = (status: number, message: string, headers?: Record<string, string>) =>
  Response.json({ success: false, message }, { status, ...(headers ? { headers } : {}) });

describe('POST /batch/points (fake upstream)', () => {
  it('answers one result per award, in request order, classified for the SDK', async () => {
    // The fake answers by eventPoints so each award meets its own fate.
    const byPoints: Record<number, () => Response> = {
      1: () => Response.json({ success: true }),
      2: () => error(422, 'IDEMPOTENCY_KEY reused with a different body'),
      3: () => error(503, 'down', { 'Retry-After': '4' }),
      8: () => error(404, 'User not found'),
      25: () => Response.json({ success: true }),
    };
    const { call, seen } = fakeRelay({ upstream: { retries: 0 }, reply: (r) => byPoints[(r.body as { eventPoints: number }).eventPoints]!() });
    // Final answers first: a retry holds back the player's later awards (checked at the end).
    const awards = [
      award('q', 'u1', 1),
      award('q', 'u1', 2),
      award('q', 'u1', 8),
      award('q', 'u2', 1), // not the token's sub
      award('q', 'u1', 25, { eventName: 'bonus' }),
      award('q', 'u1', 24, { eventName: 'bonus' }), // policy: bonus is exactly 25
      award('q', 'u1', 'ten'),
      award('q', 'u1', 3),
      award('q', 'u1', 4),
      award('q', 'u1', 1),
    ];
    const res = await call('POST', '/batch/points', { token: await token({ sub: 'u1' }), body: { awards } });
    expect(res.status).toBe(200);
    expect(v.is(BatchResponseSchema, res.json)).toBe(true);
    const results = res.json.results;
    expect(results.map((r: { idempotencyKey: string }) => r.idempotencyKey)).toEqual(awards.map((a) => a.idempotencyKey));
    expect(results.map(({ idempotencyKey, ...rest }: { idempotencyKey: string }) => rest)).toEqual([
      { outcome: 'ok' },
      { outcome: 'rejected', status: 422, message: 'IDEMPOTENCY_KEY reused with a different body' },
      { outcome: 'rejected', status: 404, message: 'User not found' },
      { outcome: 'rejected', status: 403, message: 'serviceUserId "u2" is not the token\'s sub: a player acts only on itself', code: 'player' },
      { outcome: 'ok' },
      { outcome: 'rejected', status: 422, message: 'eventPoints 24 does not match policy events.bonus.points 25', code: 'policy' },
      { outcome: 'rejected', status: 400, message: 'eventPoints must be a number', code: 'invalid' },
      { outcome: 'retry', reason: 'upstream_error', status: 503, retryAfter: 4 },
      { outcome: 'retry', reason: 'earlier_award_pending' },
      { outcome: 'retry', reason: 'earlier_award_pending' },
    ]);
    // Every award sent went with its player's key; the refused and the held-back ones were never sent.
    const sent = [awards[0], awards[1], awards[2], awards[4], awards[7]].map((a) => upstreamKey('u1', a!.idempotencyKey));
    expect(seen.map((r) => r.headers.idempotency_key)).toEqual(sent);
  });

  it('classifies each retry answer of the service on its own (one player per award)', async () => {
    const byPoints: Record<number, () => Response> = {
      3: () => error(503, 'down', { 'Retry-After': '4' }),
      4: () => error(409, 'in flight'),
      5: () => error(429, 'slow', { 'Retry-After': '2' }),
      6: () => error(401, 'API_KEY header is not a valid API key'),
      7: () => {
        throw new TypeError('fetch failed');
      },
    };
    const { call } = fakeRelay({ upstream: { retries: 0 }, reply: (r) => byPoints[(r.body as { eventPoints: number }).eventPoints]!() });
    const awards = [3, 4, 5, 6, 7].map((points) => award('q', `p${points}`, points));
    const res = await call('POST', '/batch/points', { token: await token({ sub: 'ops', role: 'admin' }), body: { awards } });
    expect(res.json.results.map(({ idempotencyKey, ...rest }: { idempotencyKey: string }) => rest)).toEqual([
      { outcome: 'retry', reason: 'upstream_error', status: 503, retryAfter: 4 },
      { outcome: 'retry', reason: 'in_flight', status: 409 },
      { outcome: 'retry', reason: 'rate_limited', status: 429, retryAfter: 2 },
      { outcome: 'retry', reason: 'upstream_auth' },
      { outcome: 'retry', reason: 'network' },
    ]);
  });

  it("passes the service's Retry-After on by one rule, single route and batch alike, whatever the status", async () => {
    // 409 passes through the single route; 500 becomes its 502; in a batch both are `retry`.
    const byPoints: Record<number, () => Response> = {
      4: () => error(409, 'in flight', { 'Retry-After': '5' }),
      6: () => error(500, 'busy', { 'Retry-After': '6' }),
    };
    const { call } = fakeRelay({ upstream: { retries: 0 }, reply: (r) => byPoints[(r.body as { eventPoints: number }).eventPoints]!() });
    const admin = await token({ sub: 'ops', role: 'admin' });
    const batch = await call('POST', '/batch/points', { token: admin, body: { awards: [award('q', 'p4', 4), award('q', 'p6', 6)] } });
    expect(batch.json.results.map(({ idempotencyKey, ...rest }: { idempotencyKey: string }) => rest)).toEqual([
      { outcome: 'retry', reason: 'in_flight', status: 409, retryAfter: 5 },
      { outcome: 'retry', reason: 'upstream_error', status: 500, retryAfter: 6 },
    ]);
    const single = (points: number) =>
      call('POST', '/group-quests/q/points', {
        token: admin,
        body: { serviceUserId: `p${points}`, eventPoints: points },
        headers: { IDEMPOTENCY_KEY: crypto.randomUUID() },
      });
    const [four, six] = [await single(4), await single(6)];
    expect([four.status, four.headers.get('retry-after')]).toEqual([409, '5']);
    expect([six.status, six.headers.get('retry-after')]).toEqual([502, '6']);
  });

  it('retries a 5xx inside a batch with the same key, then reports retry', async () => {
    const { call, seen } = fakeRelay({ upstream: { retries: 2 }, reply: () => error(500, 'boom') });
    const one = award('q', 'u1', 1);
    const res = await call('POST', '/batch/points', { token: await token({ sub: 'u1' }), body: { awards: [one] } });
    expect(res.json.results).toEqual([{ idempotencyKey: one.idempotencyKey, outcome: 'retry', reason: 'upstream_error', status: 500 }]);
    const sent = upstreamKey('u1', one.idempotencyKey);
    expect(seen.map((r) => r.headers.idempotency_key)).toEqual([sent, sent, sent]);
  });

  it('turns per-player rate-limit refusals into retry with retryAfter', async () => {
    const { call, seen } = fakeRelay({ policy: { allowUnknownEvents: true, rateLimits: { perPlayer: { limit: 2, windowSeconds: 10 } } } });
    const awards = [award('q', 'u1', 1), award('q', 'u1', 1), award('q', 'u1', 1)];
    const res = await call('POST', '/batch/points', { token: await token({ sub: 'u1' }), body: { awards } });
    expect(res.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok', 'retry']);
    expect(res.json.results[2]).toMatchObject({ reason: 'rate_limited', status: 429, retryAfter: 10 });
    expect(seen).toHaveLength(2);
  });

  it('refuses the whole batch for a bad envelope or duplicate keys, naming the indexes', async () => {
    const { call, seen } = fakeRelay();
    const t = await token({ sub: 'u1' });
    const batch = (body: unknown) => call('POST', '/batch/points', { token: t, body });
    const a = award('q', 'u1', 1);
    const dup = await batch({ awards: [a, award('q', 'u1', 2), { ...award('q', 'u1', 3), idempotencyKey: a.idempotencyKey.toUpperCase() }] });
    expect([dup.status, dup.json]).toEqual([
      400,
      { success: false, message: 'awards.2.idempotencyKey duplicates awards.0.idempotencyKey', code: 'invalid' },
    ]);
    expect((await batch({ awards: [] })).json.message).toBe('awards must hold at least 1 award');
    expect((await batch({ awards: Array.from({ length: 101 }, () => award('q', 'u1', 1)) })).json.message).toBe(
      'awards must hold at most 100 awards',
    );
    expect((await batch('awards')).json.message).toBe('body must be a JSON object');
    expect((await batch([a])).json.message).toBe('awards is required');
    expect((await batch({ awards: [a, { ...award('q', 'u1', 1), idempotencyKey: 'k1' }] })).json.message).toMatch(
      /^awards\.1\.idempotencyKey must be a UUID/,
    );
    expect(seen).toHaveLength(0);
  });

  it('sends awards of one player and quest in order, one at a time; distinct pairs up to batchConcurrency', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const perPair = new Map<string, number>();
    let maxPerPair = 0;
    // No answer leaves the fake service until 3 requests are in flight at once (bounded: a relay that never gets
    // there fails the test after 5 s), so the concurrency is proven, not hoped for from a timer.
    let saturated!: () => void;
    const full = new Promise<void>((resolve) => {
      saturated = resolve;
    });
    const bound = setTimeout(() => saturated(), 5_000);
    const { call, seen } = fakeRelay({
      batchConcurrency: 3,
      reply: async (r) => {
        const b = r.body as { serviceUserId: string };
        const pair = `${r.path}|${b.serviceUserId}`;
        perPair.set(pair, (perPair.get(pair) ?? 0) + 1);
        maxPerPair = Math.max(maxPerPair, perPair.get(pair)!);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        if (inFlight === 3) saturated();
        await full;
        // One macrotask more: the next requests start while this one is still in flight.
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        perPair.set(pair, perPair.get(pair)! - 1);
        return Response.json({ success: true });
      },
    });
    const t = await token({ sub: 'ops', role: 'admin' });
    const awards = [
      ...Array.from({ length: 6 }, (_, i) => award('q', 'same', i + 1)),
      ...Array.from({ length: 10 }, (_, i) => award('q', `user${i}`, 1)),
    ];
    const res = await call('POST', '/batch/points', { token: t, body: { awards } });
    clearTimeout(bound);
    expect(res.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(awards.map(() => 'ok'));
    expect(maxInFlight).toBe(3);
    expect(maxPerPair).toBe(1);
    const sameOrder = seen
      .filter((r) => (r.body as { serviceUserId: string }).serviceUserId === 'same')
      .map((r) => (r.body as { eventPoints: number }).eventPoints);
    expect(sameOrder).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
