// Every refusal the relay makes names whose it is (protocol/refusal.ts REFUSAL_CODES): in its error body, in a batch's
// rejected result, and in its access log line with the message, so the SDK can tell "this award is refused" from
// "this relay is misconfigured" and an operator reads why in the log. The service's own refusals pass through as
// they are, without a code.
import { describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES, REFUSAL_CODES } from '../../src/protocol/index.js';
import { createMemoryRecordStore } from '../../src/relay/index.js';
import { SECRET, token } from '../helpers/fixtures.js';
import { fakeRelay } from './helpers.js';

const GAME = 'https://game.example.com';
const POLICY = { quests: ['q', 'gone'], events: { coin: { maxPoints: 10 } }, maxPointsPerAward: 100 };

const relay = () =>
  fakeRelay({
    policy: POLICY,
    corsOrigins: [GAME],
    idempotency: { store: createMemoryRecordStore() },
    reply: (request) =>
      request.path.includes('/gone/')
        ? Response.json({ success: false, message: 'Quest not found' }, { status: 404 })
        : Response.json({ success: true }),
  });

describe('refusal codes', () => {
  it('the single route: each of its own refusals with its code, in the body and the log line', async () => {
    const { call, logs } = relay();
    const t = await token({ sub: 'u1' });
    const points = (body: unknown, options: { headers?: Record<string, string>; path?: string; raw?: string } = {}) =>
      call('POST', options.path ?? '/group-quests/q/points', {
        token: t,
        ...(options.raw === undefined ? { body } : { raw: options.raw }),
        headers: options.headers,
      });
    const key = crypto.randomUUID();
    const cases: [string, () => Promise<{ status: number; json: { code?: string; message: string } }>, number, string | undefined][] = [
      ['origin', () => points({ serviceUserId: 'u1', eventPoints: 1 }, { headers: { origin: 'https://evil.example' } }), 403, 'origin'],
      ['route', () => call('GET', '/nope', { token: t }), 404, 'route'],
      ['a method the route has not', () => call('DELETE', '/group-quests/q/points', { token: t }), 404, 'route'],
      ['bad JSON', () => points(undefined, { raw: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid'],
      ['not JSON by its type', () => points(undefined, { raw: '{}', headers: { 'content-type': 'text/plain' } }), 400, 'invalid'],
      ['a field', () => points({ serviceUserId: 'u1', eventPoints: 'ten' }), 400, 'invalid'],
      ['a malformed path', () => points({ serviceUserId: 'u1', eventPoints: 1 }, { path: '/group-quests/%ZZ/points' }), 400, 'invalid'],
      ['a key header', () => points({ serviceUserId: 'u1', eventPoints: 1 }, { headers: { IDEMPOTENCY_KEY: 'x'.repeat(300) } }), 400, 'invalid'],
      ['too large', () => points({ serviceUserId: 'u1', eventPoints: 1, eventDescription: 'x'.repeat(BODY_LIMIT_BYTES) }), 413, 'too_large'],
      ['policy: the amount', () => points({ serviceUserId: 'u1', eventPoints: 11, eventName: 'coin' }), 422, 'policy'],
      ['policy: the quest', () => points({ serviceUserId: 'u1', eventPoints: 1 }, { path: '/group-quests/other/points' }), 403, 'policy'],
      ['player', () => points({ serviceUserId: 'u2', eventPoints: 1, eventName: 'coin' }), 403, 'player'],
      [
        'no token: not final, no code',
        () => call('POST', '/group-quests/q/points', { body: { serviceUserId: 'u1', eventPoints: 1 } }),
        401,
        undefined,
      ],
      [
        "the service's own refusal: passed through without one",
        () => points({ serviceUserId: 'u1', eventPoints: 1, eventName: 'coin' }, { path: '/group-quests/gone/points' }),
        404,
        undefined,
      ],
    ];
    // The key's first award, then another award under it.
    expect((await points({ serviceUserId: 'u1', eventPoints: 1, eventName: 'coin' }, { headers: { IDEMPOTENCY_KEY: key } })).status).toBe(200);
    cases.push([
      'key_conflict',
      () => points({ serviceUserId: 'u1', eventPoints: 2, eventName: 'coin' }, { headers: { IDEMPOTENCY_KEY: key } }),
      422,
      'key_conflict',
    ]);
    for (const [name, answer, status, code] of cases) {
      const { status: got, json } = await answer();
      expect([got, json.code], name).toEqual([status, code]);
      if (code) expect(Object.keys(REFUSAL_CODES), name).toContain(code);
      // The access line of that request names the code and the reason.
      const line = logs.filter((record) => record.msg === 'request' && record.status === status).at(-1);
      expect(line, name).toMatchObject({ reason: code === undefined && status === 404 ? `the Quest Points Service: ${json.message}` : json.message });
      if (code) expect(line?.code, name).toBe(code);
    }
    const origin = logs.find((record) => record.code === 'origin');
    expect(origin?.reason).toBe('origin "https://evil.example" is not in the relay\'s CORS allowlist (corsOrigins)');
  });

  it("a batch: each rejected award's code, the service's without one; its log line names the refusals", async () => {
    const { call, logs } = relay();
    const t = await token({ sub: 'u1' });
    const award = (questId: string, serviceUserId: string, eventPoints: unknown, extra: object = {}) => ({
      questId,
      serviceUserId,
      eventPoints,
      eventName: 'coin',
      idempotencyKey: crypto.randomUUID(),
      ...extra,
    });
    const awards = [
      award('q', 'u1', 1),
      award('q', 'u1', 'ten'),
      award('q', 'u1', 11),
      award('other', 'u1', 1),
      award('q', 'u2', 1),
      award('gone', 'u1', 1),
    ];
    const res = await call('POST', '/batch/points', { token: t, body: { awards } });
    expect(
      res.json.results.map((result: { outcome: string; status?: number; code?: string }) => [result.outcome, result.status, result.code]),
    ).toEqual([
      ['ok', undefined, undefined],
      ['rejected', 400, 'invalid'],
      ['rejected', 422, 'policy'],
      ['rejected', 403, 'policy'],
      ['rejected', 403, 'player'],
      ['rejected', 404, undefined],
    ]);
    expect(logs.at(-1)).toMatchObject({ status: 200, code: 'invalid', reason: '5 of 6 awards rejected, the first: eventPoints must be a number' });
    // A batch refused whole: its code.
    const dup = await call('POST', '/batch/points', { token: t, body: { awards: [awards[0], awards[0]] } });
    expect([dup.status, dup.json.code]).toEqual([400, 'invalid']);
  });

  it('the log line never carries a secret, even when the refusal message would', async () => {
    const { call, logs } = relay();
    const t = await token({ sub: 'u1' });
    await call('GET', `/x/${SECRET}/${t}`, { token: t });
    const line = logs.at(-1);
    expect(line?.code).toBe('route');
    expect(JSON.stringify(line)).not.toContain(SECRET);
    expect(JSON.stringify(line)).not.toContain(t);
  });
});
