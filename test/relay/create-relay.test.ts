// createRelay's runtime-facing options: it opens no connection (Redis is the runtime's to open), serves under a
// basePath, and reads the client's address where the runtime puts it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, createMemoryCounterStore, type RelayOptions } from '../../src/relay/index.js';
import { OPEN_POLICY } from '../helpers/fixtures.js';
import { caller, fakeRelay, RELAY } from './helpers.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createRelay opens no connection', () => {
  it('refuses a Redis URL (option or QP_REDIS_URL) rather than count in memory, naming what to do', () => {
    expect(() => fakeRelay({ redis: 'redis://127.0.0.1:6379' } as Partial<RelayOptions>)).toThrow(ConfigError);
    vi.stubEnv('QP_REDIS_URL', 'redis://127.0.0.1:6379');
    expect(() => fakeRelay()).toThrow(/createRelay opens no connection: pass rateLimitStore: await createRedisCounterStore\(\{ url \}\)/);
    // With the store opened by the caller, the variable is no concern of createRelay's.
    expect(() => fakeRelay({ rateLimitStore: createMemoryCounterStore() })).not.toThrow();
  });
});

describe('basePath', () => {
  it('serves every route under it, and nothing outside', async () => {
    const { app } = fakeRelay({ basePath: '/api/qp/' });
    const call = caller(app.fetch);
    expect((await call('GET', '/api/qp/healthz')).status).toBe(200);
    const outside = await call('GET', '/healthz');
    expect([outside.status, outside.json]).toEqual([404, { success: false, message: 'no route GET /healthz', code: 'route' }]);
  });

  it('refuses a basePath that is not a URL path', () => {
    for (const bad of ['api/qp', '/api qp', 'https://x/qp'])
      expect(() => fakeRelay({ basePath: bad }), bad).toThrow(/basePath must be a URL path starting with "\/"/);
  });
});

describe('the client address', () => {
  const policy = { ...OPEN_POLICY, rateLimits: { perIp: { limit: 1, windowSeconds: 60 } } };
  const from = (fetch: (request: Request, env?: unknown) => Response | Promise<Response>, env: unknown) =>
    Promise.resolve(fetch(new Request(`${RELAY}/group-quests/q1/points/u1`), env)).then((response) => response.status);

  it('is read from what Bun, Deno and Cloudflare hand the handler: one bucket per address', async () => {
    const { app } = fakeRelay({ policy });
    const bun = (address: string) => ({ requestIP: () => ({ address }) });
    const deno = (hostname: string) => ({ remoteAddr: { hostname } });
    // The first request of an address passes the per-IP limit (401: no token), the second is limited (429).
    expect([await from(app.fetch, bun('198.51.100.1')), await from(app.fetch, bun('198.51.100.1'))]).toEqual([401, 429]);
    expect([await from(app.fetch, deno('198.51.100.2')), await from(app.fetch, deno('198.51.100.2'))]).toEqual([401, 429]);
    const cf = (address: string) =>
      Object.assign(new Request(`${RELAY}/group-quests/q1/points/u1`, { headers: { 'cf-connecting-ip': address } }), { cf: {} });
    expect([(await app.fetch(cf('198.51.100.3'))).status, (await app.fetch(cf('198.51.100.3'))).status]).toEqual([401, 429]);
    // A CF-Connecting-IP header anywhere but Cloudflare (no request.cf) is a client's claim: not read.
    const spoofed = (address: string) => new Request(`${RELAY}/group-quests/q1/points/u1`, { headers: { 'cf-connecting-ip': address } });
    expect((await app.fetch(spoofed('198.51.100.4'))).status).toBe(401);
    expect((await app.fetch(spoofed('198.51.100.5'))).status).toBe(429); // the shared 'unknown' bucket
  });

  it('clientAddress says where it is for any other runtime', async () => {
    const { app } = fakeRelay({ policy, clientAddress: (request) => request.headers.get('x-test-peer') ?? undefined });
    const peer = (address: string) => new Request(`${RELAY}/group-quests/q1/points/u1`, { headers: { 'x-test-peer': address } });
    expect([
      (await app.fetch(peer('203.0.113.1'))).status,
      (await app.fetch(peer('203.0.113.2'))).status,
      (await app.fetch(peer('203.0.113.1'))).status,
    ]).toEqual([401, 401, 429]);
  });
});
