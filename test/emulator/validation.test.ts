// Each validation rule: missing, wrong type, too long, control characters, e-mail and wallet both or neither,
// strings for numbers. Every message names the field and the rule.
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { emulator, expectError } from './helpers.js';

const award = (extra: Record<string, unknown>) => ({ serviceUserId: 'u1', eventPoints: 1, ...extra });

const AWARD_CASES: [string, unknown, string][] = [
  ['serviceUserId missing', { eventPoints: 1 }, 'serviceUserId is required'],
  ['serviceUserId a number', award({ serviceUserId: 42 }), 'serviceUserId must be a string'],
  ['serviceUserId null', award({ serviceUserId: null }), 'serviceUserId must be a string'],
  ['serviceUserId empty', award({ serviceUserId: '' }), 'serviceUserId must be at least 1 character'],
  ['serviceUserId too long', award({ serviceUserId: 'x'.repeat(129) }), 'serviceUserId must be at most 128 characters'],
  ['serviceUserId with NUL', award({ serviceUserId: 'a\u0000b' }), 'serviceUserId must not contain control characters'],
  ['serviceUserId with DEL', award({ serviceUserId: 'a\u007fb' }), 'serviceUserId must not contain control characters'],
  ['serviceUserId with a C1 control', award({ serviceUserId: 'a\u0085b' }), 'serviceUserId must not contain control characters'],
  ['serviceUserId ".."', award({ serviceUserId: '..' }), 'serviceUserId must not be "." or ".." (they cannot be a URL path segment)'],
  ['eventPoints missing', { serviceUserId: 'u1' }, 'eventPoints is required'],
  ['eventPoints a string', award({ eventPoints: '10' }), 'eventPoints must be a number'],
  ['eventPoints a numeric string with decimals', award({ eventPoints: '1.5' }), 'eventPoints must be a number'],
  ['eventPoints null', award({ eventPoints: null }), 'eventPoints must be a number'],
  ['eventPoints a boolean', award({ eventPoints: true }), 'eventPoints must be a number'],
  ['eventPoints an object', award({ eventPoints: { value: 1 } }), 'eventPoints must be a number'],
  ['eventName a number', award({ eventName: 7 }), 'eventName must be a string'],
  ['eventName too long', award({ eventName: 'n'.repeat(129) }), 'eventName must be at most 128 characters'],
  ['eventName with a newline', award({ eventName: 'a\nb' }), 'eventName must not contain control characters'],
  ['eventDescription a number', award({ eventDescription: 1 }), 'eventDescription must be a string'],
  ['eventDescription too long', award({ eventDescription: 'd'.repeat(2049) }), 'eventDescription must be at most 2048 characters'],
  ['eventDescription with ESC', award({ eventDescription: 'a\u001bb' }), 'eventDescription must not contain control characters'],
];

const IDENTIFY_CASES: [string, unknown, string][] = [
  ['neither email nor wallet', {}, 'exactly one of email or wallet is required (not both, not neither)'],
  [
    'both email and wallet',
    { email: 'a@b.co', wallet: { address: 'x', chain: 'y' } },
    'exactly one of email or wallet is required (not both, not neither)',
  ],
  ['email a number', { email: 5 }, 'email must be a string'],
  ['email not an address', { email: 'not-an-email' }, 'email must be a valid e-mail address'],
  ['email too long', { email: `${'a'.repeat(250)}@b.co` }, 'email must be at most 254 characters'],
  ['wallet a string', { wallet: '0xabc' }, 'wallet must be an object with address and chain'],
  ['wallet.address missing', { wallet: { chain: 'ethereum' } }, 'wallet.address is required'],
  ['wallet.chain missing', { wallet: { address: '0xabc' } }, 'wallet.chain is required'],
  ['wallet.address a number', { wallet: { address: 12, chain: 'ethereum' } }, 'wallet.address must be a string'],
  ['wallet.address empty', { wallet: { address: '  ', chain: 'ethereum' } }, 'wallet.address must not be empty'],
  ['wallet.address with a space', { wallet: { address: 'ab cd', chain: 'ethereum' } }, 'wallet.address must be printable ASCII without spaces'],
  ['wallet.address too long', { wallet: { address: 'a'.repeat(129), chain: 'ethereum' } }, 'wallet.address must be at most 128 characters'],
  ['wallet.chain too long', { wallet: { address: 'abc', chain: 'c'.repeat(65) } }, 'wallet.chain must be at most 64 characters'],
  ['wallet.chain with a control character', { wallet: { address: 'abc', chain: 'eth\u0001' } }, 'wallet.chain must not contain control characters'],
];

describe('issue points: body rules', () => {
  it.each(AWARD_CASES)('%s -> 400', async (_label, body, message) => {
    const { send } = emulator();
    expectError(await send('POST', paths.points('q'), { body }), 400, message);
    // Nothing was applied.
    expect((await send('GET', paths.enrolledUsers('q'))).body.data).toEqual([]);
  });
  it('the largest finite eventPoints is accepted; a total beyond it is refused and nothing changes', async () => {
    const { send } = emulator();
    expect((await send('POST', paths.points('q'), { body: award({ eventPoints: Number.MAX_VALUE }) })).status).toBe(200);
    expectError(
      await send('POST', paths.points('q'), { body: award({ eventPoints: Number.MAX_VALUE }) }),
      400,
      'eventPoints would take totalPoints beyond the largest finite number',
    );
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.history).toHaveLength(1);
  });
  it('numbers written with exponents are accepted (1e3, 2.5E-1)', async () => {
    const { send } = emulator();
    await send('POST', paths.points('q'), { raw: '{"serviceUserId":"u1","eventPoints":1e3}' });
    await send('POST', paths.points('q'), { raw: '{"serviceUserId":"u1","eventPoints":2.5E-1}' });
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(1000.25);
  });
  it('unknown body fields are ignored', async () => {
    const { send } = emulator();
    expect((await send('POST', paths.points('q'), { body: award({ bonus: 99 }) })).status).toBe(200);
  });
});

describe('identify: body rules', () => {
  it.each(IDENTIFY_CASES)('%s -> 400', async (_label, body, message) => {
    const { send } = emulator();
    expectError(await send('POST', paths.identify(), { body }), 400, message);
  });
  it('a chain outside the configured allowlist -> 400 naming the allowed chains', async () => {
    const { send } = emulator({ chains: ['ethereum', 'Solana'] });
    expectError(
      await send('POST', paths.identify(), { body: { wallet: { address: 'abc', chain: 'dogecoin' } } }),
      400,
      'wallet.chain must be one of: ethereum, solana',
    );
    expect((await send('POST', paths.identify(), { body: { wallet: { address: 'abc', chain: 'SOLANA' } } })).status).toBe(200);
  });
});

describe('query rules', () => {
  it.each([
    ['limit=-1', 'limit must be a non-negative integer'],
    ['limit=1.5', 'limit must be a non-negative integer'],
    ['limit=ten', 'limit must be a non-negative integer'],
    ['limit=', 'limit must be a non-negative integer'],
    ['limit=%201', 'limit must be a non-negative integer'],
    ['limit=1e2', 'limit must be a non-negative integer'],
    ['limit=0', 'limit must be at least 1'],
    ['offset=-5', 'offset must be a non-negative integer'],
    ['offset=abc', 'offset must be a non-negative integer'],
    ['offset=0x10', 'offset must be a non-negative integer'],
    ['offset=9999999999', 'offset must be a non-negative integer'],
  ])('?%s -> 400', async (query, message) => {
    const { send } = emulator();
    expectError(await send('GET', `${paths.enrolledUsers('q')}?${query}`), 400, message);
  });
});
