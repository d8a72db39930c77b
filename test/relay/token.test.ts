import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signPlayerToken } from '../../src/relay/index.js';
import { verifyPlayerToken, secretKey } from '../../src/relay/token.js';
import { SECRET, token } from './helpers.js';

const key = secretKey(SECRET);

describe('player tokens', () => {
  it('round-trips the claims, role defaulting to player', async () => {
    const jwt = await token({ sub: 'u1', quests: ['q1'], email: 'a@b.example', wallet: { chain: 'eth', address: '0xAB' } });
    const checked = await verifyPlayerToken(jwt, key);
    expect(checked).toEqual({
      ok: true,
      claims: { sub: 'u1', role: 'player', quests: ['q1'], email: 'a@b.example', wallet: { chain: 'eth', address: '0xAB' } },
    });
  });

  it('a number ttl is seconds from now, a string a time span', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
    expect(payload(await token({ sub: 'u' }, 90)).exp).toBeGreaterThanOrEqual(now + 89);
    expect(payload(await token({ sub: 'u' }, 90)).exp).toBeLessThanOrEqual(now + 91);
    expect(payload(await token({ sub: 'u' }, '2h')).exp - now).toBeGreaterThan(7190);
  });

  it('refuses expired, forged, unsigned (alg none), other-algorithm and malformed tokens', async () => {
    const expired = await token({ sub: 'u1' }, -10);
    expect(await verifyPlayerToken(expired, key)).toEqual({ ok: false, message: 'token expired' });

    const forged = await signPlayerToken({ sub: 'u1', role: 'admin' }, { secret: 'x'.repeat(40) });
    expect(await verifyPlayerToken(forged, key)).toEqual({ ok: false, message: 'token signature invalid' });

    const none = new UnsecuredJWT({ role: 'admin' }).setSubject('u1').setExpirationTime('5m').encode();
    expect((await verifyPlayerToken(none, key)).ok).toBe(false);

    const hs512 = await new SignJWT({}).setProtectedHeader({ alg: 'HS512' }).setSubject('u1').setExpirationTime('5m').sign(key);
    expect(await verifyPlayerToken(hs512, key)).toEqual({ ok: false, message: 'token algorithm not allowed (only HS256)' });

    expect(await verifyPlayerToken('not.a.jwt', key)).toEqual({ ok: false, message: 'token malformed' });
  });

  it('requires exp and sub, and valid claims', async () => {
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').sign(key);
    expect(await verifyPlayerToken(noExp, key)).toEqual({ ok: false, message: 'token claim exp invalid: missing' });
    const badRole = await new SignJWT({ role: 'root' }).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime('5m').sign(key);
    expect(await verifyPlayerToken(badRole, key)).toEqual({ ok: false, message: 'token claim role must be "player" or "admin"' });
  });

  it('refuses to sign with a missing or short secret, or invalid claims', async () => {
    await expect(signPlayerToken({ sub: 'u' }, { secret: 'short' })).rejects.toThrow(/at least 32 characters/);
    await expect(signPlayerToken({ sub: '' }, { secret: SECRET })).rejects.toThrow(/sub must be at least 1 character/);
    await expect(signPlayerToken({ sub: 'u', role: 'root' as 'admin' }, { secret: SECRET })).rejects.toThrow(/role/);
  });
});
