import { describe, expect, it } from 'vitest';
import { signPlayerToken } from '../../src/relay/index.js';
import { API_KEY, OPEN_POLICY, KEY_SECRET, OTHER_SECRET, SECRET, token, upstreamKey } from '../helpers/fixtures.js';
import { caller, fakeRelay, uuid } from './helpers.js';

const awardOnce = async (call: ReturnType<typeof fakeRelay>['call'], key: string | null = uuid()) =>
  call('POST', '/group-quests/q/points', {
    token: await token({ sub: 'u1' }),
    body: { serviceUserId: 'u1', eventPoints: 1 },
    ...(key ? { headers: { IDEMPOTENCY_KEY: key } } : {}),
  });

const error = (status: number, message = 'boom', headers?: Record<string, string>) =>
  Response.json({ success: false, message }, { status, ...(headers ? { headers } : {}) });

describe('upstream: retries and outages', () => {
  it('retries an award with a key on 5xx, same key each time, then succeeds', async () => {
    const { call, seen } = fakeRelay({ reply: (_r, n) => (n < 3 ? error(500) : Response.json({ success: true })) });
    const key = uuid();
    const res = await awardOnce(call, key);
    expect(res.status).toBe(200);
    const sent = upstreamKey('u1', key);
    expect(seen.map((r) => r.headers.idempotency_key)).toEqual([sent, sent, sent]);
  });

  it('retries a network error, a bounded number of times, then answers 502 naming the cause', async () => {
    const { call, seen } = fakeRelay({
      upstream: { retries: 3 },
      reply: () => {
        throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      },
    });
    const res = await awardOnce(call);
    expect(seen).toHaveLength(4);
    expect([res.status, res.json]).toEqual([502, { success: false, message: 'Quest Points Service unreachable (ECONNREFUSED)' }]);
  });

  it('never retries an award without a key, nor a 4xx, nor a read', async () => {
    const five = fakeRelay({ reply: () => error(500) });
    await awardOnce(five.call, null);
    await five.call('GET', '/group-quests/q/points/u1', { token: await token({ sub: 'u1' }) });
    expect(five.seen).toHaveLength(2);
    const four = fakeRelay({ reply: () => error(409, 'in flight') });
    const res = await awardOnce(four.call);
    expect([res.status, four.seen.length]).toEqual([409, 1]);
  });

  it('maps outages to 502/503/504 with clear messages', async () => {
    const cases: [Response | 'hang' | 'text', number, string][] = [
      [error(500, 'kaput'), 502, 'Quest Points Service answered 500: kaput'],
      [error(503, 'maintenance', { 'Retry-After': '7' }), 503, 'Quest Points Service answered 503: maintenance'],
      [error(504, 'gateway'), 504, 'Quest Points Service answered 504: gateway'],
      [error(401, 'API_KEY header is not a valid API key'), 502, "Quest Points Service refused the relay's API key (check QP_API_KEY)"],
      ['text', 502, 'Quest Points Service answered 200 with a body that is not JSON'],
      ['hang', 504, 'Quest Points Service did not answer within 50 ms'],
    ];
    for (const [reply, status, message] of cases) {
      const { call } = fakeRelay({
        upstream: { retries: 0, timeoutMs: 50 },
        reply: () => (reply === 'hang' ? new Promise<Response>(() => {}) : reply === 'text' ? new Response('<html>oops</html>') : reply.clone()),
      });
      const res = await call('GET', '/group-quests/q/points/u1', { token: await token({ sub: 'u1' }) });
      expect([res.status, res.json]).toEqual([status, { success: false, message }]);
      if (status === 503) expect(res.headers.get('retry-after')).toBe('7');
    }
  });

  it('a hung upstream is cut off by the timeout even when the fake ignores the signal', async () => {
    const { call } = fakeRelay({ upstream: { timeoutMs: 30 }, reply: () => new Promise<Response>(() => {}) });
    const res = await awardOnce(call);
    expect(res.status).toBe(504);
  });

  it('passes the service 429 and its Retry-After through', async () => {
    const { call } = fakeRelay({ reply: () => error(429, 'slow down', { 'Retry-After': '3' }) });
    const res = await awardOnce(call);
    expect([res.status, res.headers.get('retry-after'), res.json.message]).toEqual([429, '3', 'slow down']);
  });

  it('masks the API key and the relay secret if the service ever echoes them', async () => {
    const { call } = fakeRelay({ reply: () => error(400, `bad key ${API_KEY} and ${SECRET}`) });
    const res = await awardOnce(call);
    expect(res.text).not.toContain(API_KEY);
    expect(res.text).not.toContain(SECRET);
    expect(res.json.message).toBe('bad key [redacted] and [redacted]');
  });

  it('refuses to start without an upstream URL or API key, or with a weak secret', async () => {
    const { createRelay } = await import('../../src/relay/index.js');
    const saved = { ...process.env };
    delete process.env.QP_UPSTREAM_URL;
    delete process.env.QP_API_KEY;
    delete process.env.QP_RELAY_SECRET;
    delete process.env.QP_KEY_SECRET;
    try {
      expect(() => createRelay({ secret: SECRET, keySecret: KEY_SECRET, upstream: { apiKey: API_KEY } })).toThrow(
        'upstream URL is required: pass upstream.url or set QP_UPSTREAM_URL',
      );
      expect(() => createRelay({ secret: SECRET, keySecret: KEY_SECRET, upstream: { url: 'http://x' } })).toThrow('upstream API key is required');
      expect(() => createRelay({ keySecret: KEY_SECRET, upstream: { url: 'http://x', apiKey: API_KEY } })).toThrow('relay secret is required');
      expect(() => createRelay({ secret: 'short', keySecret: KEY_SECRET, upstream: { url: 'http://x', apiKey: API_KEY } })).toThrow(/at least 32/);
      expect(() => createRelay({ secret: SECRET, keySecret: KEY_SECRET, upstream: { url: 'ftp://x', apiKey: API_KEY } })).toThrow(/http: or https:/);
      process.env.QP_UPSTREAM_URL = 'http://from-env.test';
      process.env.QP_API_KEY = API_KEY;
      process.env.QP_RELAY_SECRET = SECRET;
      process.env.QP_KEY_SECRET = KEY_SECRET;
      expect(() => createRelay()).not.toThrow();
      // With nothing but the environment: the relay sends to QP_UPSTREAM_URL with QP_API_KEY, and takes tokens
      // signed with QP_RELAY_SECRET only.
      const sent: { url: string; apiKey: string | null }[] = [];
      const relay = createRelay({
        policy: OPEN_POLICY,
        logger: () => {},
        upstream: {
          fetch: async (request) => {
            sent.push({ url: request.url, apiKey: request.headers.get('API_KEY') });
            return Response.json({ success: true });
          },
        },
      });
      const call = caller(relay.fetch);
      const body = { serviceUserId: 'u1', eventPoints: 1 };
      const forged = await signPlayerToken({ sub: 'u1' }, { secret: OTHER_SECRET });
      expect((await call('POST', '/group-quests/q/points', { token: forged, body, headers: { IDEMPOTENCY_KEY: uuid() } })).status).toBe(401);
      expect(sent).toEqual([]);
      const res = await call('POST', '/group-quests/q/points', { token: await token({ sub: 'u1' }), body, headers: { IDEMPOTENCY_KEY: uuid() } });
      expect(res.status).toBe(200);
      expect(sent).toEqual([{ url: 'http://from-env.test/group-quests/q/points', apiKey: API_KEY }]);
    } finally {
      process.env = saved;
    }
  });
});
