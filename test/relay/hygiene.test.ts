import { describe, expect, it } from 'vitest';
import { BATCH_BODY_LIMIT_BYTES, BODY_LIMIT_BYTES } from '../../src/protocol/index.js';
import { token } from '../helpers/fixtures.js';
import { award, fakeRelay, RELAY } from './helpers.js';

const GAME = 'https://game.example.com';

describe('HTTP hygiene', () => {
  it('answers a preflight from an allowed origin with exact-origin CORS headers', async () => {
    const { app, seen } = fakeRelay({ corsOrigins: [GAME] });
    const res = await app.fetch(
      new Request(`${RELAY}/batch/points`, {
        method: 'OPTIONS',
        headers: { origin: GAME, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(GAME);
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,IDEMPOTENCY_KEY,Idempotency-Key,X-Request-Id');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST');
    expect(seen).toHaveLength(0);
  });

  it('refuses a request or preflight from any other origin with 403, nothing sent upstream', async () => {
    const { call, app, seen } = fakeRelay({ corsOrigins: [GAME] });
    const t = await token({ sub: 'u1' });
    for (const origin of ['https://evil.example', 'https://game.example.com.evil.example', 'http://game.example.com', 'null']) {
      const res = await call('POST', '/group-quests/q/points', { token: t, headers: { origin }, body: { serviceUserId: 'u1', eventPoints: 1 } });
      expect(res.status).toBe(403);
      expect(res.json.message).toBe(`origin ${JSON.stringify(origin)} is not in the relay's CORS allowlist (corsOrigins)`);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const preflight = await app.fetch(
      new Request(`${RELAY}/batch/points`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      }),
    );
    expect(preflight.status).toBe(403);
    const ok = await call('POST', '/group-quests/q/points', { token: t, headers: { origin: GAME }, body: { serviceUserId: 'u1', eventPoints: 1 } });
    expect([ok.status, ok.headers.get('access-control-allow-origin')]).toEqual([200, GAME]);
    // The SDK reads these two from a cross-origin answer; Vary keeps a cache from mixing origins.
    expect([ok.headers.get('access-control-expose-headers'), ok.headers.get('vary')]).toEqual(['Retry-After,X-Request-Id', 'Origin']);
    const refused = await call('POST', '/group-quests/q/points', {
      token: t,
      headers: { origin: GAME },
      body: { serviceUserId: 'u1', eventPoints: 'x' },
    });
    expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([400, GAME]);
    expect(seen).toHaveLength(1);
  });

  it('rejects a corsOrigins entry that is not an exact origin', () => {
    expect(() => fakeRelay({ corsOrigins: ['https://game.example.com/path'] })).toThrow(/must be an exact origin/);
  });

  it('limits bodies: 16 KiB on the spec routes, 256 KiB on the batch, 413', async () => {
    const { call, seen } = fakeRelay();
    const t = await token({ sub: 'u1' });
    const big = { serviceUserId: 'u1', eventPoints: 1, eventDescription: 'x'.repeat(BODY_LIMIT_BYTES) };
    const res = await call('POST', '/group-quests/q/points', { token: t, body: big });
    expect([res.status, res.json.message]).toEqual([413, `body must be at most ${BODY_LIMIT_BYTES} bytes`]);
    const batch = { awards: [award('q', 'u1', 1, { pad: 'x'.repeat(BATCH_BODY_LIMIT_BYTES) })] };
    expect((await call('POST', '/batch/points', { token: t, body: batch })).status).toBe(413);
    // 20 KiB is fine on the batch route.
    const fine = { awards: [award('q', 'u1', 1, { pad: 'x'.repeat(20_000) })] };
    expect((await call('POST', '/batch/points', { token: t, body: fine })).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('requires a JSON content type on bodies (400, as the emulator)', async () => {
    const { call, seen } = fakeRelay();
    const t = await token({ sub: 'u1' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', '']) {
      const res = await call('POST', '/group-quests/q/points', {
        token: t,
        raw: '{"serviceUserId":"u1","eventPoints":1}',
        headers: type ? { 'content-type': type } : {},
      });
      expect([res.status, res.json.message]).toEqual([400, 'Content-Type header must be application/json']);
    }
    const charset = await call('POST', '/group-quests/q/points', {
      token: t,
      raw: '{"serviceUserId":"u1","eventPoints":1}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('sets security headers, no-store and a request id on every response, errors included', async () => {
    const { call } = fakeRelay();
    for (const res of [await call('GET', '/group-quests/q/points/u1', { token: await token({ sub: 'u1' }) }), await call('GET', '/x')]) {
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('keeps a well-formed caller request id and replaces a hostile one', async () => {
    const { call, logs } = fakeRelay();
    const kept = await call('GET', '/x', { headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    const replaced = await call('GET', '/x', { headers: { 'x-request-id': 'a"b\\nc' } });
    expect(replaced.headers.get('x-request-id')).not.toContain('"');
    expect(logs.map((l) => l.requestId)).toEqual(['trace-123', replaced.headers.get('x-request-id')]);
  });
});

describe('authentication failures', () => {
  it('401 with WWW-Authenticate for a missing header, another scheme or a bad token', async () => {
    const { call, seen } = fakeRelay();
    const body = { serviceUserId: 'u1', eventPoints: 1 };
    const cases: [Record<string, string>, string][] = [
      [{}, 'Authorization header is required: "Bearer <token>"'],
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 'Authorization header must be "Bearer <token>"'],
      [{ authorization: 'Bearer' }, 'Authorization header must be "Bearer <token>"'],
      [{ authorization: 'Bearer a b' }, 'Authorization header must be "Bearer <token>"'],
      [{ authorization: 'Bearer abc.def.ghi' }, 'token malformed'],
    ];
    for (const [headers, message] of cases) {
      const res = await call('POST', '/group-quests/q/points', { headers, body });
      expect([res.status, res.json.message]).toEqual([401, message]);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quest-points"');
    }
    expect(seen).toHaveLength(0);
  });
});

describe('rate limits', () => {
  const limited = { allowUnknownEvents: true, rateLimits: { perPlayer: { limit: 2, windowSeconds: 30 }, perIp: { limit: 5, windowSeconds: 60 } } };

  it('per player: awards over the limit -> 429 with Retry-After naming the rule; admins exempt', async () => {
    const { call, seen } = fakeRelay({ policy: limited });
    const t = await token({ sub: 'u1' });
    const send = (tok: string, user = 'u1') => call('POST', '/group-quests/q/points', { token: tok, body: { serviceUserId: user, eventPoints: 1 } });
    expect((await send(t)).status).toBe(200);
    expect((await send(t)).status).toBe(200);
    const third = await send(t);
    expect([third.status, third.json.message]).toEqual([429, 'rate limit exceeded: policy rateLimits.perPlayer allows 2 per 30 s']);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
    expect((await send(await token({ sub: 'ops', role: 'admin' }), 'u7')).status).toBe(200);
    expect(seen).toHaveLength(3);
  });

  it('per IP: every request counts, on the socket address unless trustProxy says otherwise', async () => {
    const plain = fakeRelay({ policy: limited });
    for (let i = 0; i < 5; i++) expect((await plain.call('GET', '/x', { headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status).toBe(401);
    const res = await plain.call('GET', '/x', { headers: { 'x-forwarded-for': '10.9.9.9' } });
    expect([res.status, res.json.message]).toEqual([429, 'rate limit exceeded: policy rateLimits.perIp allows 5 per 60 s']);

    const proxied = fakeRelay({ policy: limited, trustProxy: true });
    for (let i = 0; i < 8; i++) {
      // The client may prepend anything; the entry the trusted proxy appended is the last one.
      const res = await proxied.call('GET', '/x', { headers: { 'x-forwarded-for': `1.1.1.1, 10.0.0.${i}` } });
      expect(res.status).toBe(401);
    }
  });

  it('shares limits through a pluggable counter store', async () => {
    const keys: string[] = [];
    const store = {
      increment: async (key: string) => {
        keys.push(key);
        return { count: 99, resetInMs: 1500 };
      },
    };
    const { call } = fakeRelay({ policy: limited, rateLimitStore: store });
    const res = await call('GET', '/x');
    expect([res.status, res.headers.get('retry-after')]).toEqual([429, '2']);
    expect(keys).toEqual(['qp:rl:perIp:{unknown}']);
  });
});
