// Tokens from the game's identity provider: a local JWKS server (node:http, 127.0.0.1, a free port) publishes the
// provider's public keys, and the relay verifies what the provider signs against them, with nothing but the key set's
// URL, the issuer and the audience. Every refusal is a 401 with a reason and nothing reaches the service; a provider
// that cannot be reached is a 503 (the player is not sent back to log in).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, type JwksOptions } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { fakeRelay } from './helpers.js';

const ISSUER = 'https://login.game.example/';
const AUDIENCE = 'quest-points-relay';

interface ProviderKey {
  kid: string;
  alg: 'ES256' | 'RS256' | 'EdDSA';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

async function providerKey(alg: ProviderKey['alg'], kid: string): Promise<ProviderKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** The provider: its published key set (replaceable, as at a key rotation) and how often it was fetched. */
async function startJwksServer(keys: ProviderKey[]) {
  const state = { keys, fetches: 0 };
  const server: Server = createServer((_request, response) => {
    state.fetches++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// The claims mappings docs/relay/secure.md shows: admin comes only from a mapping like these, never by default.
// #region firebase-claims
// Firebase Auth: an ID token carries the custom claims you set (admin.auth().setCustomUserClaims(uid, { admin: true })).
const firebaseClaims: JwksOptions['claims'] = (payload) => ({
  sub: String(payload.sub),
  role: payload.admin === true ? 'admin' : 'player',
  ...(payload.email_verified === true && typeof payload.email === 'string' ? { email: payload.email } : {}),
});
// #endregion firebase-claims
// #region auth0-claims
// Auth0: a post-login Action puts the user's roles in a namespaced claim of the access token:
//   api.accessToken.setCustomClaim('https://game.example.com/roles', event.authorization?.roles ?? []);
const auth0Claims: JwksOptions['claims'] = (payload) => {
  const roles = payload['https://game.example.com/roles'];
  return { sub: String(payload.sub), role: Array.isArray(roles) && roles.includes('quest-admin') ? 'admin' : 'player' };
};
// #endregion auth0-claims

const now = () => Math.floor(Date.now() / 1000);
/** A token as the provider issues it: 15 minutes, its issuer, the relay's audience, unless the test says otherwise. */
function sign(key: ProviderKey, claims: JWTPayload = {}, header: { kid?: string } = {}) {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 900, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: header.kid ?? key.kid, typ: 'JWT' })
    .sign(key.privateKey);
}

let es: ProviderKey;
let rs: ProviderKey;
let ed: ProviderKey;
let provider: Awaited<ReturnType<typeof startJwksServer>>;
beforeAll(async () => {
  [es, rs, ed] = await Promise.all([providerKey('ES256', 'es-1'), providerKey('RS256', 'rs-1'), providerKey('EdDSA', 'ed-1')]);
  provider = await startJwksServer([es, rs, ed]);
});
afterAll(() => provider?.close());

/** A relay taking the provider's tokens (and, with `secret`, its own HS256 ones); its service answers every call. */
function relayFor(more: Parameters<typeof fakeRelay>[0] = {}) {
  return fakeRelay({ secret: undefined, jwks: { url: provider.url, issuer: ISSUER, audience: AUDIENCE, cooldownMs: 50 }, ...more });
}
const read = (relay: ReturnType<typeof fakeRelay>, jwt: string, player = 'alice') =>
  relay.call('GET', `/group-quests/q/points/${player}`, { token: jwt });

describe('tokens from a JWKS', () => {
  it('accepts valid ES256, RS256 and EdDSA tokens, fetching the key set once', async () => {
    const relay = relayFor();
    const fetchesBefore = provider.state.fetches;
    for (const key of [es, rs, ed]) {
      const res = await read(relay, await sign(key, { sub: 'alice' }));
      expect([key.alg, res.status]).toEqual([key.alg, 200]);
    }
    expect(relay.seen.length).toBe(3);
    expect(provider.state.fetches - fetchesBefore).toBe(1);
  });

  it("maps the player as the relay's own tokens do (quests, role, e-mail) and refuses another player", async () => {
    const relay = relayFor();
    const jwt = await sign(es, { sub: 'alice', quests: ['q'], email: 'alice@example.com' });
    expect((await read(relay, jwt)).status).toBe(200);
    expect((await read(relay, jwt, 'bob')).status).toBe(403);
    const identify = await relay.call('POST', '/users/identify', { token: jwt, body: { email: 'alice@example.com' } });
    expect(identify.status).toBe(200);
  });

  it.each([
    ['wrong iss', () => sign(es, { sub: 'alice', iss: 'https://evil.example/' }), 'token claim iss invalid: unexpected "iss" claim value'],
    ['wrong aud', () => sign(es, { sub: 'alice', aud: 'another-app' }), 'token claim aud invalid: unexpected "aud" claim value'],
    ['expired', () => sign(rs, { sub: 'alice', iat: now() - 1000, exp: now() - 100 }), 'token expired'],
    ['unknown kid', () => sign(es, { sub: 'alice' }, { kid: 'not-published' }), 'token signing key unknown to the identity provider'],
    [
      'alg none',
      async () => new UnsecuredJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice' }).setIssuedAt().setExpirationTime('5m').encode(),
      'token algorithm not allowed (only RS256, ES256, EdDSA)',
    ],
    [
      'lifetime beyond maxTokenAgeSeconds',
      () => sign(es, { sub: 'alice', exp: now() + 86_400 }),
      "token lifetime (exp - iat) must be at most 3600 s (the relay's maxTokenAgeSeconds)",
    ],
    ['no sub', () => sign(es), 'token claim sub invalid: missing'],
  ])('%s -> 401, nothing sent to the service', async (_name, make, message) => {
    const relay = relayFor();
    const res = await read(relay, await make());
    expect([res.status, res.json.message]).toEqual([401, message]);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quest-points"');
    expect(relay.seen).toEqual([]);
  });

  it("algorithm confusion: HS256 signed with the provider's public key is refused, with or without HS256 secrets", async () => {
    const pem = await exportSPKI(rs.publicKey);
    const jwkText = JSON.stringify(rs.jwk);
    const forged = await Promise.all(
      [pem, jwkText].map((secret) =>
        new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', role: 'admin', iat: now(), exp: now() + 600 })
          .setProtectedHeader({ alg: 'HS256', kid: rs.kid })
          .sign(new TextEncoder().encode(secret)),
      ),
    );
    const jwksOnly = relayFor();
    const both = relayFor({ secret: SECRET });
    for (const jwt of forged) {
      const refused = await read(jwksOnly, jwt);
      expect([refused.status, refused.json.message]).toEqual([401, 'token algorithm not allowed (only RS256, ES256, EdDSA)']);
      const alsoRefused = await read(both, jwt);
      expect([alsoRefused.status, alsoRefused.json.message]).toEqual([401, 'token signature invalid']);
    }
    expect([...jwksOnly.seen, ...both.seen]).toEqual([]);
    // With both configured, each kind still passes its own check.
    expect((await read(both, await token({ sub: 'alice' }))).status).toBe(200);
    expect((await read(both, await sign(es, { sub: 'alice' }))).status).toBe(200);
  });

  it('picks up a key the provider adds, without a restart; a withdrawn key signs nothing new', async () => {
    const keys = await Promise.all([providerKey('ES256', 'es-a'), providerKey('ES256', 'es-b')]);
    const own = await startJwksServer([keys[0]!]);
    try {
      const relay = fakeRelay({ secret: undefined, jwks: { url: own.url, issuer: ISSUER, audience: AUDIENCE, cooldownMs: 50 } });
      const before = await sign(keys[0]!, { sub: 'alice' });
      expect((await read(relay, before)).status).toBe(200);
      // The provider rotates: es-b replaces es-a.
      own.state.keys = [keys[1]!];
      const after = await sign(keys[1]!, { sub: 'alice' });
      await until(async () => (await read(relay, after)).status === 200, 'the new kid to be accepted', 5_000);
      const withdrawn = await read(relay, await sign(keys[0]!, { sub: 'alice', jti: 'new' }));
      expect([withdrawn.status, withdrawn.json.message]).toEqual([401, 'token signing key unknown to the identity provider']);
      // A token verified before the withdrawal lives on (token cache) until its exp: the documented rule.
      expect((await read(relay, before)).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('a provider that cannot be reached is a 503 with Retry-After, not a 401', async () => {
    const gone = await startJwksServer([es]);
    await gone.close();
    const relay = fakeRelay({ secret: undefined, jwks: { url: gone.url, issuer: ISSUER, audience: AUDIENCE, timeoutMs: 1000 } });
    const res = await read(relay, await sign(es, { sub: 'alice' }));
    expect([res.status, res.json.message, res.headers.get('retry-after')]).toEqual([
      503,
      'identity provider key set unavailable (QP_JWKS_URL); retry later',
      '5',
    ]);
    expect(relay.seen).toEqual([]);
  });

  it("a provider's role is not the relay's: role admin (Firebase custom claims, Auth0 or Keycloak roles) makes no admin by default", async () => {
    const relay = relayFor();
    const jwt = await sign(es, { sub: 'alice', role: 'admin' });
    const award = await relay.call('POST', '/group-quests/q/points', { token: jwt, body: { serviceUserId: 'bob', eventPoints: 1 } });
    expect([award.status, award.json.code]).toEqual([403, 'player']);
    expect((await read(relay, jwt, 'bob')).status).toBe(403);
    // Still alice, a player: her own awards go.
    expect((await relay.call('POST', '/group-quests/q/points', { token: jwt, body: { serviceUserId: 'alice', eventPoints: 1 } })).status).toBe(200);
    // Supabase's role "authenticated" (on every token) is no obstacle either: a player.
    expect((await read(relay, await sign(es, { sub: 'alice', role: 'authenticated' }))).status).toBe(200);
    expect(relay.seen.map((request) => request.path)).toEqual(['/v1/group-quests/q/points', '/v1/group-quests/q/points/alice']);
  });

  it('admin only through an explicit claims mapping: Firebase custom claims, Auth0 roles', async () => {
    const firebase = relayFor({ jwks: { url: provider.url, issuer: ISSUER, audience: AUDIENCE, claims: firebaseClaims } });
    const admin = await sign(es, { sub: 'ops', admin: true });
    const player = await sign(es, { sub: 'alice', admin: 'true', role: 'admin' });
    const forBob = { serviceUserId: 'bob', eventPoints: 1 };
    expect((await firebase.call('POST', '/group-quests/q/points', { token: admin, body: forBob })).status).toBe(200);
    expect((await firebase.call('POST', '/group-quests/q/points', { token: player, body: forBob })).status).toBe(403);
    const auth0 = relayFor({ jwks: { url: provider.url, issuer: ISSUER, audience: AUDIENCE, claims: auth0Claims } });
    const roles = (list: string[]) => sign(rs, { sub: 'ops', 'https://game.example.com/roles': list });
    expect((await auth0.call('POST', '/group-quests/q/points', { token: await roles(['quest-admin']), body: forBob })).status).toBe(200);
    expect((await auth0.call('POST', '/group-quests/q/points', { token: await roles(['admin', 'editor']), body: forBob })).status).toBe(403);
  });

  it("claims(payload) maps a provider's own claim names; null is a 401; an unverified e-mail is dropped", async () => {
    const relay = relayFor({
      jwks: {
        url: provider.url,
        issuer: ISSUER,
        audience: AUDIENCE,
        claims: (payload) => (payload.banned ? null : { sub: String(payload.sub), quests: payload['https://game.example/quests'] as string[] }),
      },
    });
    const supabaseLike = await sign(es, { sub: 'alice', role: 'authenticated', 'https://game.example/quests': ['q'] });
    expect((await read(relay, supabaseLike)).status).toBe(200);
    expect((await relay.call('GET', '/group-quests/other/points/alice', { token: supabaseLike })).status).toBe(403);
    const banned = await read(relay, await sign(es, { sub: 'alice', banned: true }));
    expect([banned.status, banned.json.message]).toEqual([401, 'token not accepted: claims() returned no player']);
    // Default mapping: the provider's role is not read, so Supabase's "authenticated" is a player.
    expect((await read(relayFor(), supabaseLike)).status).toBe(200);
    const unverified = await sign(es, { sub: 'mallory', email: 'alice@example.com', email_verified: false });
    const identify = await relayFor().call('POST', '/users/identify', { token: unverified, body: { email: 'alice@example.com' } });
    expect([identify.status, identify.json.message]).toEqual([403, expect.stringContaining('the token carries no email')]);
  });

  it('refuses to start without issuer or audience, off-loopback http, or a symmetric algorithm', () => {
    const base = { keySecret: KEY_SECRET, upstream: { url: 'http://service.test', apiKey: API_KEY } };
    const jwks = { url: provider.url, issuer: ISSUER, audience: AUDIENCE };
    expect(() => createRelay({ ...base, jwks: { ...jwks, issuer: '' } })).toThrow('jwks.issuer (QP_JWT_ISSUER) is required');
    expect(() => createRelay({ ...base, jwks: { ...jwks, audience: [] } })).toThrow('jwks.audience (QP_JWT_AUDIENCE) is required');
    expect(() => createRelay({ ...base, jwks: { ...jwks, url: 'http://login.example/jwks.json' } })).toThrow('must be https:');
    expect(() => createRelay({ ...base, jwks: { ...jwks, algorithms: ['HS256' as 'RS256'] } })).toThrow('jwks.algorithms must be some of');
    expect(() => createRelay({ ...base, jwks: { ...jwks, url: 'http://127.0.0.1.evil.example/jwks.json' } })).toThrow('must be https:');
    for (const url of [provider.url, 'http://localhost:8080/jwks.json', 'http://[::1]:8080/jwks.json', 'https://login.example/jwks.json']) {
      expect(() => createRelay({ ...base, jwks: { ...jwks, url } })).not.toThrow();
    }
  });
});
