// Sandbox mode: the spec's test environment, exactly.
import { describe, expect, it } from 'vitest';
import { MESSAGES, SANDBOX_NOT_ENROLLED_ID, SANDBOX_USER_ID, paths } from '../../src/protocol/index.js';
import { emulator, expectError } from './helpers.js';

describe('sandbox mode', () => {
  it.each([
    { email: 'anyone@example.com' },
    { email: 'someone.else@example.org' },
    { wallet: { address: '0x0000000000000000000000000000000000000001', chain: 'ethereum' } },
    { wallet: { address: 'So1anaAddre55', chain: 'any-chain-at-all' } },
  ])('identify %j -> the one fixed mock user', async (body) => {
    const { send } = emulator({ mode: 'sandbox', autoCreate: false, chains: ['ethereum'] });
    expect(await send('POST', paths.identify(), { body })).toMatchObject({
      status: 200,
      body: { success: true, data: { serviceUserId: SANDBOX_USER_ID } },
    });
  });
  it('identify still validates: both or neither -> 400', async () => {
    const { send } = emulator({ mode: 'sandbox' });
    expectError(await send('POST', paths.identify(), { body: {} }), 400, /exactly one of email or wallet/);
  });
  it.each(['u1', SANDBOX_USER_ID, 'never-seen-before', 'ünïcødé', 'user_not_enrolled_but_longer'])(
    'enrollment check for %s -> 200 enrolled',
    async (id) => {
      const { send } = emulator({ mode: 'sandbox' });
      expect((await send('GET', paths.enrollment('q', id))).body).toEqual({
        success: true,
        data: { serviceUserId: id, enrolled: true, currentPoints: 0 },
      });
    },
  );
  it(`enrollment check for ${SANDBOX_NOT_ENROLLED_ID} -> 404 with the spec's message`, async () => {
    const { send } = emulator({ mode: 'sandbox' });
    expectError(await send('GET', paths.enrollment('q', SANDBOX_NOT_ENROLLED_ID)), 404, MESSAGES.notEnrolled);
  });
  it('awards are validated and acknowledged but keep nothing', async () => {
    const { send } = emulator({ mode: 'sandbox' });
    expect((await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 5 } })).body).toEqual({ success: true });
    expectError(await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: '5' } }), 400, 'eventPoints must be a number');
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body).toEqual({ success: true, data: { totalPoints: 0, history: [] } });
  });
  it('the enrolled-users list holds the mock user', async () => {
    const { send } = emulator({ mode: 'sandbox' });
    expect((await send('GET', paths.enrolledUsers('q'))).body).toEqual({
      success: true,
      data: [{ serviceUserId: SANDBOX_USER_ID, email: null }],
      pagination: { limit: 100, offset: 0, nextPage: null, previousPage: null },
    });
  });
  it('authentication is the same as stateful mode', async () => {
    const { send } = emulator({ mode: 'sandbox' });
    expectError(await send('GET', paths.enrollment('q', 'u'), { apiKey: null }), 400, 'API_KEY header is required');
    expectError(await send('GET', paths.enrollment('q', 'u'), { apiKey: 'nope' }), 401, 'API_KEY header is not a valid API key');
  });
  it('switching mode at run time keeps the stateful ledger', async () => {
    const { send } = emulator({ admin: true });
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u1', eventPoints: 3 } });
    await send('PUT', '/__emulator/mode', { body: { mode: 'sandbox' } });
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(0);
    await send('PUT', '/__emulator/mode', { body: { mode: 'stateful' } });
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(3);
  });
});
