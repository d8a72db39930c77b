import { describe, expect, it } from 'vitest';
import { API_KEY, token, upstreamKey } from '../helpers/fixtures.js';
import { award, fakeRelay, uuid } from './helpers.js';

describe('relay routes (fake upstream)', () => {
  it('forwards an award with the API key, the player-scoped idempotency key and only the spec fields', async () => {
    const { call, seen } = fakeRelay();
    const key = uuid().toUpperCase();
    const res = await call('POST', '/group-quests/q1/points', {
      token: await token({ sub: 'u1' }),
      headers: { IDEMPOTENCY_KEY: key },
      body: { serviceUserId: 'u1', eventPoints: 5, eventName: 'coin', eventDescription: 'd', extra: 'dropped' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: 'http://service.test/v1/group-quests/q1/points',
      body: { serviceUserId: 'u1', eventPoints: 5, eventName: 'coin', eventDescription: 'd' },
    });
    expect(seen[0]!.headers.api_key).toBe(API_KEY);
    // The service sees the key scoped to the player (keys.ts), the same for any spelling of the client's key.
    expect(seen[0]!.headers.idempotency_key).toBe(upstreamKey('u1', key));
    expect(upstreamKey('u1', key)).toBe(upstreamKey('u1', key.toLowerCase()));
    expect(upstreamKey('u1', key)).not.toBe(upstreamKey('u2', key));
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(seen[0]!.headers['x-request-id']).toBe(res.headers.get('x-request-id'));
  });

  it('omits eventName when the caller did, so the service default applies', async () => {
    const { call, seen } = fakeRelay();
    await call('POST', '/group-quests/q1/points', { token: await token({ sub: 'u1' }), body: { serviceUserId: 'u1', eventPoints: 1 } });
    expect(seen[0]!.body).toEqual({ serviceUserId: 'u1', eventPoints: 1 });
    expect(seen[0]!.headers.idempotency_key).toBeUndefined();
  });

  it('re-encodes every path segment: an id never changes the upstream path', async () => {
    const { call, seen } = fakeRelay();
    const admin = await token({ sub: 'admin', role: 'admin' });
    await call('POST', `/group-quests/${encodeURIComponent('../users/identify')}/points`, {
      token: admin,
      body: { serviceUserId: 'u', eventPoints: 1 },
    });
    await call('GET', `/group-quests/${encodeURIComponent('a/b')}/points/${encodeURIComponent('../../users/identify')}`, { token: admin });
    await call('GET', `/group-quests/${encodeURIComponent('a?b#c')}/enrolled-users/${encodeURIComponent('x y')}`, { token: admin });
    await call('GET', `/group-quests/${encodeURIComponent('q/1')}/enrolled-users?limit=5&offset=10&evil=1`, { token: admin });
    expect(seen.map((r) => r.path)).toEqual([
      '/v1/group-quests/..%2Fusers%2Fidentify/points',
      '/v1/group-quests/a%2Fb/points/..%2F..%2Fusers%2Fidentify',
      '/v1/group-quests/a%3Fb%23c/enrolled-users/x%20y',
      '/v1/group-quests/q%2F1/enrolled-users?limit=5&offset=10',
    ]);
  });

  it('refuses "." and ".." ids in the body of a batch before anything is sent', async () => {
    const { call, seen } = fakeRelay();
    const res = await call('POST', '/batch/points', { token: await token({ sub: 'u1' }), body: { awards: [award('..', 'u1', 1)] } });
    expect(res.json.results[0]).toMatchObject({ outcome: 'rejected', status: 400, message: expect.stringContaining('questId') });
    expect(seen).toHaveLength(0);
  });

  it('passes the service answers through: status and body', async () => {
    const history = { success: true, data: { totalPoints: 3, history: [] } };
    const { call } = fakeRelay({
      reply: (r) =>
        r.path.includes('/points/')
          ? Response.json(history)
          : r.path.includes('identify')
            ? Response.json({ success: false, message: 'User not found' }, { status: 404 })
            : Response.json({ success: false, message: 'User is not enrolled in the quest' }, { status: 404 }),
    });
    const t = await token({ sub: 'u1', email: 'me@x.example' });
    expect((await call('GET', '/group-quests/q/points/u1', { token: t })).json).toEqual(history);
    const identify = await call('POST', '/users/identify', { token: t, body: { email: 'ME@x.example' } });
    expect([identify.status, identify.json]).toEqual([404, { success: false, message: 'User not found' }]);
    const enrolled = await call('GET', '/group-quests/q/enrolled-users/u1', { token: t });
    expect([enrolled.status, enrolled.json.message]).toEqual([404, 'User is not enrolled in the quest']);
  });

  it('validates bodies, headers and queries with the protocol schemas (400 naming the field)', async () => {
    const { call, seen } = fakeRelay();
    const t = await token({ sub: 'u1', role: 'admin' });
    const post = (body: unknown, headers?: Record<string, string>) =>
      call('POST', '/group-quests/q/points', { token: t, body, ...(headers ? { headers } : {}) });
    expect((await post({ serviceUserId: 'u1', eventPoints: '5' })).json.message).toBe('eventPoints must be a number');
    expect((await post({ serviceUserId: 'u1', eventPoints: 1 }, { IDEMPOTENCY_KEY: 'nope' })).json.message).toMatch(
      /^IDEMPOTENCY_KEY must be a UUID/,
    );
    expect((await post({ eventPoints: 1 })).json.message).toBe('serviceUserId is required');
    expect(
      (await call('POST', '/group-quests/q/points', { token: t, raw: '{"a":', headers: { 'content-type': 'application/json' } })).json.message,
    ).toBe('body must be valid JSON');
    expect((await call('POST', '/users/identify', { token: t, body: {} })).json.message).toMatch(/exactly one of email or wallet/);
    expect((await call('GET', '/group-quests/q/enrolled-users?limit=-1', { token: t })).json.message).toBe(
      'query limit must be a non-negative integer',
    );
    expect(seen).toHaveLength(0);
  });

  it('answers unknown routes 404 with the standard body', async () => {
    const { call } = fakeRelay();
    const res = await call('GET', '/nope', { token: await token({ sub: 'u1' }) });
    expect([res.status, res.json]).toEqual([404, { success: false, message: 'no route GET /nope', code: 'route' }]);
  });
});

describe('who may do what', () => {
  it('a player awards to and reads only itself, in its token quests', async () => {
    const { call, seen } = fakeRelay();
    const t = await token({ sub: 'u1', quests: ['q1'] });
    const refused = [
      await call('POST', '/group-quests/q1/points', { token: t, body: { serviceUserId: 'u2', eventPoints: 1 } }),
      await call('POST', '/group-quests/q2/points', { token: t, body: { serviceUserId: 'u1', eventPoints: 1 } }),
      await call('GET', '/group-quests/q1/points/u2', { token: t }),
      await call('GET', '/group-quests/q1/enrolled-users/u2', { token: t }),
      await call('GET', '/group-quests/q2/points/u1', { token: t }),
      await call('GET', '/group-quests/q1/enrolled-users', { token: t }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(refused[0]!.json.message).toBe('serviceUserId "u2" is not the token\'s sub: a player acts only on itself');
    expect(refused[1]!.json.message).toBe('questId "q2" is not in the token\'s quests');
    expect(refused[5]!.json.message).toMatch(/admin token/);
    expect(seen).toHaveLength(0);
    expect((await call('GET', '/group-quests/q1/points/u1', { token: t })).status).toBe(200);
  });

  it('a player identifies only the e-mail or wallet its token carries', async () => {
    const { call, seen } = fakeRelay({ reply: () => Response.json({ success: true, data: { serviceUserId: 'u1' } }) });
    const t = await token({ sub: 'u1', email: 'me@x.example', wallet: { chain: 'ethereum', address: '0xAbCdEf0123456789abcdef0123456789ABCDEF01' } });
    const bare = await token({ sub: 'u1' });
    const id = (tok: string, body: unknown) => call('POST', '/users/identify', { token: tok, body });
    expect((await id(t, { email: ' Me@X.example ' })).status).toBe(200);
    expect((await id(t, { wallet: { chain: 'ethereum', address: '0xabcdef0123456789ABCDEF0123456789abcdef01' } })).status).toBe(200);
    expect((await id(t, { email: 'other@x.example' })).status).toBe(403);
    expect((await id(t, { wallet: { chain: 'polygon', address: '0xabcdef0123456789ABCDEF0123456789abcdef01' } })).status).toBe(403);
    expect((await id(bare, { email: 'me@x.example' })).json.message).toBe('email: the token carries no email, so it may identify none');
    expect(seen).toHaveLength(2);
  });

  it('an admin may do all', async () => {
    const { call, seen } = fakeRelay();
    const t = await token({ sub: 'ops', role: 'admin', quests: ['q1'] });
    expect((await call('POST', '/group-quests/q2/points', { token: t, body: { serviceUserId: 'u9', eventPoints: 1 } })).status).toBe(200);
    expect((await call('GET', '/group-quests/q2/enrolled-users', { token: t })).status).toBe(200);
    expect((await call('POST', '/users/identify', { token: t, body: { email: 'any@x.example' } })).status).toBe(200);
    expect(seen).toHaveLength(3);
  });

  it('policy quests bind admins too', async () => {
    const { call, seen } = fakeRelay({ policy: { quests: ['q1'], allowUnknownEvents: true } });
    const t = await token({ sub: 'ops', role: 'admin' });
    const res = await call('GET', '/group-quests/q2/enrolled-users', { token: t });
    expect([res.status, res.json.message]).toEqual([403, 'questId "q2" is not in policy quests']);
    expect(seen).toHaveLength(0);
  });

  it('uses the operator authenticate() instead of JWTs when given', async () => {
    const { call, seen } = fakeRelay({
      authenticate: async (request) => (request.headers.get('cookie') === 'session=ok' ? { sub: 'u1' } : null),
    });
    const body = { serviceUserId: 'u1', eventPoints: 1 };
    expect((await call('POST', '/group-quests/q/points', { body, headers: { cookie: 'session=ok' } })).status).toBe(200);
    const res = await call('POST', '/group-quests/q/points', { body, token: await token({ sub: 'u1' }) });
    expect([res.status, res.json.message]).toEqual([401, 'authentication required']);
    expect(seen).toHaveLength(1);
  });
});
