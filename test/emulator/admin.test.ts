// /__emulator/*: off unless enabled; reset, seed, state export/import, request log, mode.
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { API_KEY } from '../helpers/fixtures.js';
import { emulator, expectError, uuid } from './helpers.js';

describe('admin routes', () => {
  it.each(['/__emulator/state', '/__emulator/requests', '/__emulator/faults', '/__emulator/mode'])('%s is 404 unless admin: true', async (path) => {
    const { send } = emulator();
    expectError(await send('GET', path, { apiKey: null }), 404, 'route not found');
  });
  it('need no API_KEY', async () => {
    const { send } = emulator({ admin: true });
    expect((await send('GET', '/__emulator/mode', { apiKey: null })).body).toEqual({ success: true, data: { mode: 'stateful' } });
  });
  it('seed: users with e-mails and wallets, enrollments with points', async () => {
    const { send } = emulator({ admin: true });
    const seeded = await send('POST', '/__emulator/seed', {
      body: {
        users: [
          { serviceUserId: 'alice', email: 'Alice@Example.com' },
          { email: 'bob@example.com' },
          { wallet: { address: '0xABCDEF0000000000000000000000000000000001', chain: 'Ethereum' } },
        ],
        enrollments: [
          { questId: 'q', serviceUserId: 'alice', points: 12.5 },
          { questId: 'q', serviceUserId: 'carol' },
        ],
      },
    });
    expect(seeded.status).toBe(200);
    expect(seeded.body.data.users).toEqual([
      { serviceUserId: 'alice', email: 'alice@example.com', wallets: [] },
      { serviceUserId: expect.stringMatching(/^usr_/), email: 'bob@example.com', wallets: [] },
      {
        serviceUserId: expect.stringMatching(/^usr_/),
        email: null,
        wallets: [{ chain: 'ethereum', address: '0xabcdef0000000000000000000000000000000001' }],
      },
    ]);
    expect(seeded.body.data.enrollments).toBe(2);
    // Identify finds seeded users by normalised e-mail and wallet.
    expect((await send('POST', paths.identify(), { body: { email: ' ALICE@example.com' } })).body.data.serviceUserId).toBe('alice');
    const walletUser = (
      await send('POST', paths.identify(), { body: { wallet: { address: '0xabcdef0000000000000000000000000000000001', chain: 'ETHEREUM' } } })
    ).body.data.serviceUserId;
    expect(walletUser).toBe(seeded.body.data.users[2].serviceUserId);
    expect((await send('GET', paths.enrollment('q', 'alice'))).body.data.currentPoints).toBe(12.5);
    expect((await send('GET', paths.enrollment('q', 'carol'))).body.data.currentPoints).toBe(0);
    expect((await send('GET', paths.enrolledUsers('q'))).body.data).toEqual([
      { serviceUserId: 'alice', email: 'alice@example.com' },
      { serviceUserId: 'carol', email: null },
    ]);
  });
  it('seed is all or nothing: a conflicting e-mail -> 400 naming the item, nothing kept', async () => {
    const { send } = emulator({ admin: true });
    await send('POST', '/__emulator/seed', { body: { users: [{ serviceUserId: 'a', email: 'x@example.com' }] } });
    const result = await send('POST', '/__emulator/seed', {
      body: { users: [{ serviceUserId: 'b' }, { serviceUserId: 'c', email: 'X@example.com' }], enrollments: [{ questId: 'q', serviceUserId: 'b' }] },
    });
    expectError(result, 400, 'users.1 email already belongs to another user');
    const state = (await send('GET', '/__emulator/state')).body.data;
    expect(state.users.map((u: { serviceUserId: string }) => u.serviceUserId)).toEqual(['a']);
  });
  it('seed validates its body', async () => {
    const { send } = emulator({ admin: true });
    expectError(
      await send('POST', '/__emulator/seed', { body: { enrollments: [{ questId: 'q' }] } }),
      400,
      'enrollments.0.serviceUserId is required',
    );
    expectError(await send('POST', '/__emulator/seed', { body: { users: [{}] } }), 400, 'users.0 serviceUserId, email or wallet is required');
  });
  it('state export -> import into a fresh emulator gives the same answers, including idempotent replays', async () => {
    const a = emulator({ admin: true });
    const key = uuid();
    await a.send('POST', paths.identify(), { body: { email: 'p@example.com' } });
    await a.send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 0.1 }, headers: { IDEMPOTENCY_KEY: key } });
    await a.send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 0.2 } });
    const exported = (await a.send('GET', '/__emulator/state')).body;
    const b = emulator({ admin: true });
    const imported = await b.send('PUT', '/__emulator/state', { body: exported });
    expect(imported.body).toEqual({ success: true, data: { users: 1, enrollments: 1, ledger: 2 } });
    for (const path of [paths.pointsOf('q', 'u1'), paths.enrolledUsers('q'), paths.enrollment('q', 'u1')]) {
      expect((await b.send('GET', path)).body).toEqual((await a.send('GET', path)).body);
    }
    expect((await b.send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(0.3);
    const replay = await b.send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 0.1 }, headers: { IDEMPOTENCY_KEY: key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await b.send('POST', paths.identify(), { body: { email: 'p@example.com' } })).body).toEqual(
      (await a.send('POST', paths.identify(), { body: { email: 'p@example.com' } })).body,
    );
    // The bare state works as well, and as the `state` option.
    const c = createEmulator({ apiKeys: [API_KEY], state: exported.data });
    const total = await (await c.request(paths.pointsOf('q', 'u1'), { headers: { API_KEY } })).json();
    expect(total.data.totalPoints).toBe(0.3);
  });
  it('the exported state holds no API key', async () => {
    const { send } = emulator({ admin: true, apiKeys: ['sk_live_super_secret'] });
    await send('POST', paths.points('q'), {
      body: { serviceUserId: 'u', eventPoints: 1 },
      headers: { IDEMPOTENCY_KEY: uuid() },
      apiKey: 'sk_live_super_secret',
    });
    const text = JSON.stringify((await send('GET', '/__emulator/state')).body);
    expect(text).not.toContain('sk_live_super_secret');
    expect(text).toMatch(/"scope":"[0-9a-f]{64}"/);
  });
  it('state import validates: a bad state -> 400 naming the field, the old state kept', async () => {
    const { send } = emulator({ admin: true });
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u', eventPoints: 1 } });
    expectError(await send('PUT', '/__emulator/state', { body: { version: 2 } }), 400, 'state.version must be 1');
    expectError(
      await send('PUT', '/__emulator/state', { body: { version: 1, ledger: [{ questId: 'q' }] } }),
      400,
      'state.ledger.0.serviceUserId is required',
    );
    expect((await send('GET', paths.pointsOf('q', 'u'))).body.data.totalPoints).toBe(1);
  });
  it('an invalid `state` option throws at creation', () => {
    expect(() => createEmulator({ state: { version: 3 } as never })).toThrow(/state.version must be 1/);
  });
  it('reset empties ledger, users, keys, log and turns faults off', async () => {
    const { send } = emulator({ admin: true, faults: { latencyMs: 1 } });
    const key = uuid();
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u', eventPoints: 1 }, headers: { IDEMPOTENCY_KEY: key } });
    expect((await send('POST', '/__emulator/reset')).body).toEqual({ success: true });
    expect((await send('GET', '/__emulator/state')).body.data).toEqual({ version: 1, users: [], enrollments: [], ledger: [], idempotency: [] });
    expect((await send('GET', '/__emulator/requests')).body.data).toEqual([]);
    expect((await send('GET', '/__emulator/faults')).body.data).toEqual({ seed: expect.any(Number) });
    const again = await send('POST', paths.points('q'), { body: { serviceUserId: 'u', eventPoints: 1 }, headers: { IDEMPOTENCY_KEY: key } });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });
  it('request log: method, path, status, key; never a header value; oldest first; DELETE clears it', async () => {
    const { send } = emulator({ admin: true });
    const key = uuid();
    await send('POST', paths.points('q w'), { body: { serviceUserId: 'u', eventPoints: 1 }, headers: { IDEMPOTENCY_KEY: key } });
    await send('GET', `${paths.enrolledUsers('q')}?limit=5`, { apiKey: 'wrong-secret-key' });
    const log = (await send('GET', '/__emulator/requests')).body.data;
    expect(log).toEqual([
      { seq: 1, at: expect.any(String), method: 'POST', path: '/group-quests/q%20w/points', status: 200, idempotencyKey: key },
      { seq: 2, at: expect.any(String), method: 'GET', path: '/group-quests/q/enrolled-users?limit=5', status: 401 },
    ]);
    expect(JSON.stringify(log)).not.toContain('wrong-secret-key');
    expect(JSON.stringify(log)).not.toContain(API_KEY);
    await send('DELETE', '/__emulator/requests');
    expect((await send('GET', '/__emulator/requests')).body.data).toEqual([]);
  });
  it('the request log is bounded', async () => {
    const { send } = emulator({ admin: true, requestLogSize: 3 });
    for (let i = 0; i < 5; i++) await send('GET', paths.pointsOf('q', `u${i}`));
    const log = (await send('GET', '/__emulator/requests')).body.data;
    expect(log.map((e: { seq: number }) => e.seq)).toEqual([3, 4, 5]);
  });
  it('mode: PUT validates', async () => {
    const { send } = emulator({ admin: true });
    expectError(await send('PUT', '/__emulator/mode', { body: { mode: 'live' } }), 400, "mode must be 'stateful' or 'sandbox'");
  });
  it('admin bodies: malformed JSON -> 400', async () => {
    const { send } = emulator({ admin: true });
    expectError(await send('PUT', '/__emulator/faults', { raw: '{' }), 400, 'body must be valid JSON');
  });
});

describe('identify, stateful', () => {
  it('a stable id per normalised e-mail, across emulators', async () => {
    const a = emulator();
    const b = emulator();
    const id1 = (await a.send('POST', paths.identify(), { body: { email: 'Player@Example.com' } })).body.data.serviceUserId;
    const id2 = (await a.send('POST', paths.identify(), { body: { email: '  player@example.COM ' } })).body.data.serviceUserId;
    const id3 = (await b.send('POST', paths.identify(), { body: { email: 'player@example.com' } })).body.data.serviceUserId;
    expect(id1).toBe(id2);
    expect(id1).toBe(id3);
    expect((await a.send('POST', paths.identify(), { body: { email: 'other@example.com' } })).body.data.serviceUserId).not.toBe(id1);
  });
  it('a stable id per (chain, address): EVM addresses compare lower-cased, chains too', async () => {
    const { send } = emulator();
    const id = async (address: string, chain: string) =>
      (await send('POST', paths.identify(), { body: { wallet: { address, chain } } })).body.data.serviceUserId;
    const evm = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
    expect(await id(evm, 'ethereum')).toBe(await id(evm.toLowerCase(), 'Ethereum'));
    expect(await id(evm, 'ethereum')).not.toBe(await id(evm, 'polygon'));
    // Non-EVM addresses are case-sensitive (base58).
    expect(await id('AbC123', 'solana')).not.toBe(await id('abc123', 'solana'));
  });
  it('the e-mail learned by identify shows in the enrolled-users list', async () => {
    const { send } = emulator();
    const id = (await send('POST', paths.identify(), { body: { email: 'me@example.com' } })).body.data.serviceUserId;
    await send('POST', paths.points('q'), { body: { serviceUserId: id, eventPoints: 1 } });
    expect((await send('GET', paths.enrolledUsers('q'))).body.data).toEqual([{ serviceUserId: id, email: 'me@example.com' }]);
  });
});
