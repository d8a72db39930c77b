// The spec's tables, row by row: endpoint x status x message, in stateful mode (sandbox has its own file).
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  EnrolledUsersResponseSchema,
  EnrollmentResponseSchema,
  ErrorBodySchema,
  IdentifyResponseSchema,
  MESSAGES,
  PointsResponseSchema,
  paths,
} from '../../src/protocol/index.js';
import { API_KEY } from '../helpers/fixtures.js';
import { emulator, expectError, type Send } from './helpers.js';

interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: (questId: string, serviceUserId: string) => string;
  body?: unknown;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'issue points', method: 'POST', path: (q) => paths.points(q), body: { serviceUserId: 'u1', eventPoints: 5 } },
  { name: 'identify', method: 'POST', path: () => paths.identify(), body: { email: 'player@example.com' } },
  { name: 'points history', method: 'GET', path: (q, u) => paths.pointsOf(q, u) },
  { name: 'enrollment check', method: 'GET', path: (q, u) => paths.enrollment(q, u) },
  { name: 'enrolled users', method: 'GET', path: (q) => paths.enrolledUsers(q) },
];

const call = (send: Send, e: Endpoint, options: Parameters<Send>[2] = {}) =>
  send(e.method, e.path('quest-1', 'u1'), { ...(e.body === undefined ? {} : { body: e.body }), ...options });

describe('§5 authentication, every endpoint', () => {
  it.each(ENDPOINTS)('$name: missing API_KEY -> 400 naming the header', async (e) => {
    const { send } = emulator();
    expectError(await call(send, e, { apiKey: null }), 400, 'API_KEY header is required');
  });
  it.each(ENDPOINTS)('$name: empty API_KEY -> 400', async (e) => {
    const { send } = emulator();
    expectError(await call(send, e, { apiKey: '' }), 400, 'API_KEY header is required');
  });
  it.each(ENDPOINTS)('$name: wrong API_KEY -> 401, the key is not echoed', async (e) => {
    const { send } = emulator();
    const result = await call(send, e, { apiKey: 'sk_wrong_secret_value' });
    expectError(result, 401, 'API_KEY header is not a valid API key');
    expect(JSON.stringify(result.body)).not.toContain('sk_wrong_secret_value');
  });
  it.each(ENDPOINTS)('$name: the header name is case-insensitive (api_key)', async (e) => {
    const { send } = emulator();
    const result = await call(send, e, { apiKey: null, headers: { api_key: API_KEY } });
    expect(result.status).not.toBe(400);
    expect(result.status).not.toBe(401);
  });
  it('any of several configured keys is accepted', async () => {
    const { send } = emulator({ apiKeys: ['k1', 'k2'] });
    expect((await send('GET', paths.pointsOf('q', 'u'), { apiKey: 'k2' })).status).toBe(200);
    expect((await send('GET', paths.pointsOf('q', 'u'), { apiKey: 'k1' })).status).toBe(200);
    expect((await send('GET', paths.pointsOf('q', 'u'), { apiKey: 'k3' })).status).toBe(401);
  });
});

describe('§7 errors: 400 on every endpoint for invalid identifiers', () => {
  const withIds = ENDPOINTS.filter((e) => e.name !== 'identify');
  const bad: [string, string, string][] = [
    ['too long', 'q'.repeat(129), 'questId must be at most 128 characters'],
    ['a control character', 'a\u0007b', 'questId must not contain control characters'],
  ];
  for (const e of withIds) {
    it.each(bad)(`${e.name}: questId %s -> 400`, async (_label, questId, message) => {
      const { send } = emulator();
      expectError(await send(e.method, e.path(questId, 'u1'), e.body === undefined ? {} : { body: e.body }), 400, message);
    });
  }
  it.each(withIds)('$name: questId "." or ".." never reaches the route (URLs resolve dot-segments) -> 404', async (e) => {
    const { send } = emulator();
    for (const questId of ['.', '..', '%2E%2E']) {
      expectError(
        await send(e.method, e.path(questId, 'u1').replace(encodeURIComponent(questId), questId), e.body === undefined ? {} : { body: e.body }),
        404,
        'route not found',
      );
    }
  });
  const withUser = ENDPOINTS.filter((e) => e.name === 'points history' || e.name === 'enrollment check');
  for (const e of withUser) {
    it(`${e.name}: serviceUserId too long -> 400`, async () => {
      const { send } = emulator();
      expectError(await send(e.method, e.path('q', 'u'.repeat(129))), 400, 'serviceUserId must be at most 128 characters');
    });
    it(`${e.name}: serviceUserId with a control character -> 400`, async () => {
      const { send } = emulator();
      expectError(await send(e.method, e.path('q', 'line\nbreak')), 400, 'serviceUserId must not contain control characters');
    });
  }
});

describe('§4.1 issue quest points', () => {
  it('200 { success: true } and the points are kept', async () => {
    const { send } = emulator();
    const result = await send('POST', paths.points('q'), {
      body: { serviceUserId: 'u1', eventPoints: 7, eventName: 'Win', eventDescription: 'first' },
    });
    expect(result).toMatchObject({ status: 200, body: { success: true } });
    expect(Object.keys(result.body)).toEqual(['success']);
    const points = await send('GET', paths.pointsOf('q', 'u1'));
    expect(points.body.data).toEqual({
      totalPoints: 7,
      history: [{ createdAt: expect.any(String), eventPoints: 7, eventName: 'Win', eventDescription: 'first' }],
    });
  });
  it('eventName defaults to DefaultPointsEvent, eventDescription to ""', async () => {
    const { send } = emulator();
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 1 } });
    const points = await send('GET', paths.pointsOf('q', 'u1'));
    expect(points.body.data.history[0]).toMatchObject({ eventName: 'DefaultPointsEvent', eventDescription: '' });
  });
  it('integers and floats, negative too, are accepted', async () => {
    const { send } = emulator();
    for (const eventPoints of [3, 0.25, -1.5, 0]) {
      expect((await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints } })).status).toBe(200);
    }
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(1.75);
  });
  it('400 { success: false, message } on invalid data', async () => {
    const { send } = emulator();
    expectError(await send('POST', paths.points('q'), { body: { eventPoints: 1 } }), 400, 'serviceUserId is required');
  });
});

describe('§4.2 identify a user', () => {
  it('200 { success: true, data: { serviceUserId } }', async () => {
    const { send } = emulator();
    const result = await send('POST', paths.identify(), { body: { email: 'a@example.com' } });
    expect(result.status).toBe(200);
    expect(v.is(IdentifyResponseSchema, result.body)).toBe(true);
  });
  it('200 for a wallet', async () => {
    const { send } = emulator();
    const result = await send('POST', paths.identify(), {
      body: { wallet: { address: '0xAbC0000000000000000000000000000000000001', chain: 'ethereum' } },
    });
    expect(result.status).toBe(200);
    expect(result.body.data.serviceUserId).toEqual(expect.any(String));
  });
  it('400 when both email and wallet are sent', async () => {
    const { send } = emulator();
    const result = await send('POST', paths.identify(), { body: { email: 'a@example.com', wallet: { address: 'x', chain: 'y' } } });
    expectError(result, 400, 'exactly one of email or wallet is required (not both, not neither)');
  });
  it('400 when neither is sent (missing parameters)', async () => {
    const { send } = emulator();
    expectError(await send('POST', paths.identify(), { body: {} }), 400, 'exactly one of email or wallet is required (not both, not neither)');
  });
  it(`404 "${MESSAGES.userNotFound}" when the user cannot be found (autoCreate: false)`, async () => {
    const { send } = emulator({ autoCreate: false });
    expectError(await send('POST', paths.identify(), { body: { email: 'nobody@example.com' } }), 404, 'User not found');
    expectError(await send('POST', paths.identify(), { body: { wallet: { address: 'addr1', chain: 'solana' } } }), 404, 'User not found');
  });
});

describe('§4.3 get quest points history', () => {
  it('200 with totalPoints and the history newest first', async () => {
    let clock = Date.parse('2025-01-01T00:00:00.000Z');
    const { send } = emulator({ now: () => clock });
    for (const [i, points] of [1, 2, 3].entries()) {
      clock += 1000;
      await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: points, eventName: `e${i}` } });
    }
    const result = await send('GET', paths.pointsOf('q', 'u1'));
    expect(v.is(PointsResponseSchema, result.body)).toBe(true);
    expect(result.body.data.totalPoints).toBe(6);
    expect(result.body.data.history.map((e: { eventName: string }) => e.eventName)).toEqual(['e2', 'e1', 'e0']);
    expect(result.body.data.history[0].createdAt).toBe('2025-01-01T00:00:03.000Z');
  });
  it('ties in createdAt are listed in arrival order, latest first', async () => {
    const { send } = emulator({ now: () => 0 });
    for (const name of ['a', 'b', 'c']) await send('POST', paths.points('q'), { body: { serviceUserId: 'u', eventPoints: 1, eventName: name } });
    const history = (await send('GET', paths.pointsOf('q', 'u'))).body.data.history;
    expect(history.map((e: { eventName: string }) => e.eventName)).toEqual(['c', 'b', 'a']);
  });
  it('a user never awarded in the quest: 200 with 0 and an empty history', async () => {
    const { send } = emulator();
    expect((await send('GET', paths.pointsOf('q', 'nobody'))).body).toEqual({ success: true, data: { totalPoints: 0, history: [] } });
  });
  it('points are per quest', async () => {
    const { send } = emulator();
    await send('POST', paths.points('q1'), { body: { serviceUserId: 'u', eventPoints: 4 } });
    expect((await send('GET', paths.pointsOf('q2', 'u'))).body.data.totalPoints).toBe(0);
  });
});

describe('§4.4 get enrolled user', () => {
  it('200 { serviceUserId, enrolled: true, currentPoints } when enrolled', async () => {
    const { send } = emulator();
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 2.5 } });
    const result = await send('GET', paths.enrollment('q', 'u1'));
    expect(v.is(EnrollmentResponseSchema, result.body)).toBe(true);
    expect(result.body).toEqual({ success: true, data: { serviceUserId: 'u1', enrolled: true, currentPoints: 2.5 } });
  });
  it(`404 "${MESSAGES.notEnrolled}" when not enrolled`, async () => {
    const { send } = emulator();
    expectError(await send('GET', paths.enrollment('q', 'u1')), 404, 'User is not enrolled in the quest');
  });
  it('enrollment is per quest', async () => {
    const { send } = emulator();
    await send('POST', paths.points('q1'), { body: { serviceUserId: 'u1', eventPoints: 1 } });
    expectError(await send('GET', paths.enrollment('q2', 'u1')), 404, MESSAGES.notEnrolled);
  });
});

describe('§4.5 get all enrolled users', () => {
  it('200 with data [{ serviceUserId, email }] and pagination', async () => {
    const { send } = emulator({ admin: true });
    await send('POST', '/__emulator/seed', { body: { users: [{ serviceUserId: 'u1', email: 'One@Example.com' }] } });
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 1 } });
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u2', eventPoints: 1 } });
    const result = await send('GET', paths.enrolledUsers('q'));
    expect(v.is(EnrolledUsersResponseSchema, result.body)).toBe(true);
    expect(result.body).toEqual({
      success: true,
      data: [
        { serviceUserId: 'u1', email: 'one@example.com' },
        { serviceUserId: 'u2', email: null },
      ],
      pagination: { limit: 100, offset: 0, nextPage: null, previousPage: null },
    });
  });
  it('an unknown quest has no enrolled users', async () => {
    const { send } = emulator();
    expect((await send('GET', paths.enrolledUsers('nothing-here'))).body.data).toEqual([]);
  });
});

describe('beyond the tables: routes, bodies, failures', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/group-quests'],
    ['GET', '/group-quests/q/points'],
    ['POST', '/group-quests/q/points/u'],
    ['GET', '/users/identify'],
    ['DELETE', '/group-quests/q/enrolled-users/u'],
    ['GET', '/users/identify/'],
    ['GET', '/__emulator/state'],
  ])('%s %s -> 404 route not found (whatever the key)', async (method, path) => {
    const { send } = emulator();
    expectError(await send(method, path), 404, 'route not found');
    expectError(await send(method, path, { apiKey: null }), 404, 'route not found');
  });
  it.each([
    ['issue points', paths.points('q')],
    ['identify', paths.identify()],
  ])('%s: a body over 16 KiB -> 413', async (_name, path) => {
    const { send } = emulator();
    const body = { serviceUserId: 'u', eventPoints: 1, eventDescription: 'x'.repeat(17 * 1024) };
    expectError(await send('POST', path, { body }), 413, 'body must be at most 16384 bytes');
  });
  it.each([
    ['issue points', paths.points('q')],
    ['identify', paths.identify()],
  ])('%s: malformed JSON -> 400', async (_name, path) => {
    const { send } = emulator();
    expectError(await send('POST', path, { raw: '{"serviceUserId": ' }), 400, 'body must be valid JSON');
    expectError(await send('POST', path, { raw: '' }), 400, 'body must be valid JSON');
  });
  it.each([
    ['issue points', paths.points('q')],
    ['identify', paths.identify()],
  ])('%s: a body that is not an object -> 400', async (_name, path) => {
    const { send } = emulator();
    for (const body of [[], 'text', 42, null]) {
      expectError(await send('POST', path, { body }), 400, 'body must be a JSON object');
    }
  });
  it.each([
    ['text/plain', paths.points('q')],
    ['application/x-www-form-urlencoded', paths.identify()],
  ])('Content-Type %s -> 400 naming the header', async (type, path) => {
    const { send } = emulator();
    expectError(
      await send('POST', path, { body: { email: 'a@b.co' }, headers: { 'content-type': type } }),
      400,
      'Content-Type header must be application/json',
    );
  });
  it('Content-Type application/json; charset=utf-8 is accepted', async () => {
    const { send } = emulator();
    const result = await send('POST', paths.identify(), {
      body: { email: 'a@b.co' },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(result.status).toBe(200);
  });
  it('an unexpected failure -> 500 "internal error", nothing of the cause leaks', async () => {
    const { send } = emulator({
      now: () => {
        throw new Error('db password hunter2 at /srv/secret.ts:42');
      },
    });
    const result = await send('POST', paths.points('q'), { body: { serviceUserId: 'u', eventPoints: 1 } });
    expectError(result, 500, 'internal error');
    expect(JSON.stringify(result.body)).not.toMatch(/hunter2|secret|Error/);
  });
  it('every error body matches the protocol error schema', async () => {
    const { send } = emulator();
    const results = await Promise.all([
      send('GET', '/nope'),
      send('GET', paths.pointsOf('q', 'u'), { apiKey: null }),
      send('GET', paths.enrollment('q', 'u')),
    ]);
    for (const r of results) expect(v.is(ErrorBodySchema, r.body)).toBe(true);
  });
  it('responses are JSON and not cacheable', async () => {
    const { send } = emulator();
    const result = await send('GET', paths.pointsOf('q', 'u'));
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(result.headers.get('cache-control')).toBe('no-store');
  });
});
