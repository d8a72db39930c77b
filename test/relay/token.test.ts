import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signPlayerToken } from '../../src/relay/index.js';
import { verifyPlayerToken, secretKey } from '../../src/relay/token.js';
import { OTHER_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { fakeRelay } from './helpers.js';

const key = secretKey(SECRET);

describe('player tokens', () => {
  it('round-trips the claims, role defaulting to player', async () => {
    const jwt = await token({ sub: 'u1', quests: ['q1'], email: 'a@b.example', wallet: { chain: 'eth', address: '0xAB' } });
    const checked = await verifyPlayerToken(jwt, key);
    expect(checked).toEqual({
      ok: true,
      claims: { sub: 'u1', role: 'player', quests: ['q1'], email: 'a@b.example', wallet: { chain: 'eth', address: '0xAB' } },
      exp: expect.any(Number),
    });
  });

  it('a number ttl is seconds from now, a string a time span', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
    expect(payload(await token({ sub: 'u' }, 90)).exp).toBeGreaterThanOrEqual(now + 89);
    expect(payload(await token({ sub: 'u' }, 90)).exp).toBeLessThanOrEqual(now + 91);
    expect(payload(await token({ sub: 'u' }, '1h')).exp - now).toBeGreaterThan(3590);
  });

  it('refuses expired, forged, unsigned (alg none), other-algorithm and malformed tokens', async () => {
    const expired = await token({ sub: 'u1' }, -10);
    expect(await verifyPlayerToken(expired, key)).toEqual({ ok: false, message: 'token expired' });

    const forged = await signPlayerToken({ sub: 'u1', role: 'admin' }, { secret: OTHER_SECRET });
    expect(await verifyPlayerToken(forged, key)).toEqual({ ok: false, message: 'token signature invalid' });

    const none = new UnsecuredJWT({ role: 'admin' }).setSubject('u1').setExpirationTime('5m').encode();
    expect((await verifyPlayerToken(none, key)).ok).toBe(false);

    const hs512 = await new SignJWT({}).setProtectedHeader({ alg: 'HS512' }).setSubject('u1').setExpirationTime('5m').sign(key);
    expect(await verifyPlayerToken(hs512, key)).toEqual({ ok: false, message: 'token algorithm not allowed (only HS256)' });

    expect(await verifyPlayerToken('not.a.jwt', key)).toEqual({ ok: false, message: 'token malformed' });
  });

  it('requires exp and sub, and valid claims', async () => {
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setIssuedAt().sign(key);
    expect(await verifyPlayerToken(noExp, key)).toEqual({ ok: false, message: 'token claim exp invalid: missing' });
    const noIat = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime('5m').sign(key);
    expect(await verifyPlayerToken(noIat, key)).toEqual({ ok: false, message: 'token claim iat invalid: missing' });
    const badRole = await new SignJWT({ role: 'root' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
    expect(await verifyPlayerToken(badRole, key)).toEqual({ ok: false, message: 'token claim role must be "player" or "admin"' });
  });

  describe('bounded lifetime (maxTokenAgeSeconds, default 3600)', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const signed = (iat: number, exp: number) =>
      new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setIssuedAt(iat).setExpirationTime(exp).sign(key);
    const lifetime = "token lifetime (exp - iat) must be at most 3600 s (the relay's maxTokenAgeSeconds)";

    it('refuses exp 100 years ahead and exp 1e308', async () => {
      expect(await verifyPlayerToken(await signed(now(), now() + 100 * 365 * 86_400), key)).toEqual({ ok: false, message: lifetime });
      expect(await verifyPlayerToken(await signed(now(), 1e308), key)).toEqual({ ok: false, message: lifetime });
    });

    it('refuses iat a year ahead, accepts iat a few seconds ahead (clock skew)', async () => {
      const ahead = now() + 365 * 86_400;
      expect(await verifyPlayerToken(await signed(ahead, ahead + 60), key)).toEqual({ ok: false, message: 'token claim iat invalid: in the future' });
      expect((await verifyPlayerToken(await signed(now() + 5, now() + 600), key)).ok).toBe(true);
    });

    it('accepts exactly the maximum, honours a configured one', async () => {
      const iat = now();
      expect((await verifyPlayerToken(await signed(iat, iat + 3600), key)).ok).toBe(true);
      expect((await verifyPlayerToken(await signed(iat, iat + 3601), key)).ok).toBe(false);
      expect((await verifyPlayerToken(await signed(iat, iat + 7200), key, { maxTokenAgeSeconds: 7200 })).ok).toBe(true);
      expect(await verifyPlayerToken(await signed(iat, iat + 600), key, { maxTokenAgeSeconds: 300 })).toEqual({
        ok: false,
        message: "token lifetime (exp - iat) must be at most 300 s (the relay's maxTokenAgeSeconds)",
      });
    });

    it('signPlayerToken refuses a ttl beyond the maximum with a clear error, and signs within it', async () => {
      await expect(signPlayerToken({ sub: 'u' }, { secret: SECRET, ttl: '2h' })).rejects.toThrow(
        'ttl "2h" is longer than maxTokenAgeSeconds 3600: the relay would refuse the token',
      );
      await expect(signPlayerToken({ sub: 'u' }, { secret: SECRET, ttl: 3601 })).rejects.toThrow(RangeError);
      const long = await signPlayerToken({ sub: 'u' }, { secret: SECRET, ttl: '2h', maxTokenAgeSeconds: 7200 });
      expect((await verifyPlayerToken(long, key, { maxTokenAgeSeconds: 7200 })).ok).toBe(true);
      expect((await verifyPlayerToken(await signPlayerToken({ sub: 'u' }, { secret: SECRET }), key)).ok).toBe(true);
    });
  });

  it('refuses to sign with a missing or short secret, or invalid claims', async () => {
    await expect(signPlayerToken({ sub: 'u' }, { secret: 'short' })).rejects.toThrow(/at least 32 characters/);
    await expect(signPlayerToken({ sub: '' }, { secret: SECRET })).rejects.toThrow(/sub must be at least 1 character/);
    await expect(signPlayerToken({ sub: 'u', role: 'root' as 'admin' }, { secret: SECRET })).rejects.toThrow(/role/);
  });
});

describe('the Authorization scheme', () => {
  it('Bearer is matched case-insensitively (RFC 7235: the scheme is a case-insensitive token); anything else is 401', async () => {
    const { call } = fakeRelay();
    const jwt = await token({ sub: 'u1' });
    const read = (authorization: string) => call('GET', '/group-quests/q/points/u1', { headers: { authorization } });
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) expect((await read(`${scheme} ${jwt}`)).status, scheme).toBe(200);
    for (const header of [`Basic ${jwt}`, `Bearer${jwt}`, `Bearerx ${jwt}`, jwt]) expect((await read(header)).status, header.slice(0, 8)).toBe(401);
  });
});
