import { describe, expect, it } from 'vitest';
import { API_KEY, SECRET, token } from '../helpers/fixtures.js';
import { fakeRelay } from './helpers.js';

describe('structured logs', () => {
  it('writes one record per request with time, level, requestId, method, path, status, ms, msg', async () => {
    const { call, logs } = fakeRelay();
    const res = await call('GET', '/group-quests/q/points/u1?x=secret-query', { token: await token({ sub: 'u1' }) });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: 'info',
      requestId: res.headers.get('x-request-id'),
      method: 'GET',
      path: '/group-quests/q/points/u1',
      status: 200,
      ms: expect.any(Number),
      msg: 'request',
    });
  });

  it('logs upstream failures and refusals without the API key, the secret or the token', async () => {
    const t = await token({ sub: 'u1' });
    const { call, logs } = fakeRelay({
      upstream: { retries: 0 },
      reply: () => {
        throw Object.assign(new Error(`connect to http://x?key=${API_KEY} failed`), { cause: { code: 'ECONNRESET' } });
      },
    });
    await call('GET', '/group-quests/q/points/u1', { token: t });
    await call('GET', `/group-quests/q/points/${t}`, { token: t });
    await call('GET', '/group-quests/q/points/u1', { token: `${t}x` });
    const text = JSON.stringify(logs);
    expect(logs.map((l) => [l.level, l.status])).toEqual([
      ['error', 502],
      ['error', 502],
      ['warn', 400],
      ['warn', 401],
    ]);
    expect(logs[0]!.msg).toBe('upstream: Quest Points Service unreachable (ECONNRESET) (attempts 1)');
    expect(logs[2]!.path).toBe('/group-quests/q/points/[redacted]');
    for (const secret of [API_KEY, SECRET, t]) expect(text).not.toContain(secret);
  });

  it('logs unexpected errors as 500 with the request id, masking secrets', async () => {
    const { call, logs } = fakeRelay({
      authenticate: async () => {
        throw new Error(`session store down (${API_KEY})`);
      },
    });
    const res = await call('GET', '/group-quests/q/points/u1');
    expect(res.status).toBe(500);
    expect(res.json.message).toBe(`internal error (request ${res.headers.get('x-request-id')})`);
    expect(logs[0]).toMatchObject({ level: 'error', status: 500, msg: 'unexpected: session store down ([redacted])' });
    expect(JSON.stringify(logs)).not.toContain(API_KEY);
  });
});
