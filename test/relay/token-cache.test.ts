// The verified-token cache: bounded, never past a token's exp nor maxTokenAgeSeconds, never holding a failure, built
// per relay instance from its secrets (a removed secret's tokens stop when the relay runs without it), and what it
// saves under a repeated-award load (its hit rate).
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAuth, type AuthOptions } from '../../src/relay/authenticate.js';
import type { RelayEnv } from '../../src/relay/context.js';
import { signPlayerToken } from '../../src/relay/index.js';
import { createTokenCache, DEFAULT_TOKEN_CACHE_SIZE, MAX_CACHED_TOKEN_LENGTH } from '../../src/relay/token-cache.js';
import { secretKey } from '../../src/relay/token.js';
import { API_KEY, KEY_SECRET, OTHER_SECRET, SECRET, token } from '../helpers/fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

/** The relay's authentication in front of a route that answers the caller's claims, and its token cache. */
function authed(options: AuthOptions = {}) {
  const auth = createAuth({ secret: SECRET, keySecret: KEY_SECRET, ...options }, {}, API_KEY);
  const app = new Hono<RelayEnv>();
  app.use(auth.middleware);
  app.get('/me', (c) => c.json(c.get('claims')));
  const call = async (jwt: string) => {
    const res = await app.fetch(new Request('http://relay.test/me', { headers: { authorization: `Bearer ${jwt}` } }));
    return { status: res.status, body: (await res.json()) as { sub?: string; message?: string } };
  };
  return { call, stats: () => auth.tokenCache.stats() };
}

const seconds = () => Math.floor(Date.now() / 1000);

describe('verified-token cache', () => {
  it('is bounded: the least recently used entry goes first', async () => {
    const cache = createTokenCache(3, 3600);
    const keys = await Promise.all(['t1', 't2', 't3', 't4', 't5'].map((t) => cache.keyOf(t)));
    for (const [i, key] of keys.entries()) cache.set(key, { sub: `p${i}`, role: 'player' }, seconds() + 600);
    expect(cache.stats().size).toBe(3);
    expect(keys.map((key) => cache.get(key)?.claims.sub)).toEqual([undefined, undefined, 'p2', 'p3', 'p4']);
    expect(DEFAULT_TOKEN_CACHE_SIZE).toBe(10_000);
    // Through the relay: 5 players, a bound of 2.
    const relay = authed({ tokenCacheSize: 2 });
    for (let i = 0; i < 5; i++) expect((await relay.call(await token({ sub: `p${i}` }))).status).toBe(200);
    expect(relay.stats().size).toBe(2);
  });

  it('serves a token until its exp, never after: the next request is verified again and refused', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const relay = authed();
    const jwt = await token({ sub: 'alice' }, 30);
    expect((await relay.call(jwt)).status).toBe(200);
    expect((await relay.call(jwt)).status).toBe(200);
    expect(relay.stats()).toMatchObject({ hits: 1, misses: 1, size: 1 });
    vi.setSystemTime(Date.now() + 31_000);
    expect(await relay.call(jwt)).toEqual({ status: 401, body: { success: false, message: 'token expired' } });
    expect(relay.stats()).toMatchObject({ hits: 1, misses: 2, size: 0 });
  });

  it('never keeps an entry longer than maxTokenAgeSeconds, whatever exp says', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const cache = createTokenCache(10, 60);
    const key = await cache.keyOf('a-token');
    cache.set(key, { sub: 'alice', role: 'player' }, seconds() + 3600);
    expect(cache.get(key)?.claims.sub).toBe('alice');
    vi.setSystemTime(Date.now() + 61_000);
    expect(cache.get(key)).toBeUndefined();
    // An exp already past is never stored.
    cache.set(key, { sub: 'alice', role: 'player' }, seconds() - 1);
    expect(cache.stats().size).toBe(0);
  });

  it('is keyed by the token itself, and never holds one longer than MAX_CACHED_TOKEN_LENGTH', () => {
    const cache = createTokenCache(10, 3600);
    const jwt = 'header.payload.signature';
    expect(cache.keyOf(jwt)).toBe(jwt);
    cache.set(cache.keyOf(jwt), { sub: 'alice', role: 'player' }, seconds() + 600);
    expect(cache.get(cache.keyOf(`${jwt}x`))).toBeUndefined();
    expect(cache.get(cache.keyOf(jwt))?.claims.sub).toBe('alice');
    const long = 'x'.repeat(MAX_CACHED_TOKEN_LENGTH + 1);
    cache.set(cache.keyOf(long), { sub: 'bob', role: 'player' }, seconds() + 600);
    expect(cache.get(cache.keyOf(long))).toBeUndefined();
    expect(cache.stats().size).toBe(1);
  });

  it('never caches a failure: a token refused once is verified afresh next time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const relay = authed();
    const refused = [await signPlayerToken({ sub: 'alice' }, { secret: OTHER_SECRET }), await token({ sub: 'alice' }, -5), 'not.a.token'];
    for (const jwt of refused) expect((await relay.call(jwt)).status).toBe(401);
    expect(relay.stats().size).toBe(0);
    // Issued 2 minutes ahead of our clock: refused now, accepted once the clock catches up (never a cached refusal).
    const ahead = seconds() + 120;
    const early = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt(ahead)
      .setExpirationTime(ahead + 600)
      .sign(secretKey(SECRET));
    expect((await relay.call(early)).body.message).toBe('token claim iat invalid: in the future');
    vi.setSystemTime(Date.now() + 120_000);
    expect(await relay.call(early)).toEqual({ status: 200, body: { sub: 'alice', role: 'player' } });
  });

  it('a token signed by a removed secret stops working when the relay runs without that secret', async () => {
    const during = authed({ secret: [OTHER_SECRET, SECRET] });
    const old = await token({ sub: 'alice' });
    expect((await during.call(old)).status).toBe(200);
    expect((await during.call(old)).status).toBe(200);
    expect(during.stats().hits).toBe(1);
    // The rotation's last step: the relay restarted with the new secret alone. Its cache is its own, and empty.
    const after = authed({ secret: OTHER_SECRET });
    expect(await after.call(old)).toEqual({ status: 401, body: { success: false, message: 'token signature invalid' } });
    expect((await after.call(await signPlayerToken({ sub: 'alice' }, { secret: [OTHER_SECRET, SECRET] }))).status).toBe(200);
  });

  it('hit rate under a repeated-award load: 3,000 awards from 500 players, 16 in flight -> 2,500 hits (83.3 %)', async () => {
    const PLAYERS = 500;
    const AWARDS = 3000;
    const run = async (options: AuthOptions) => {
      const relay = authed(options);
      const tokens = await Promise.all(Array.from({ length: PLAYERS }, (_, i) => token({ sub: `player-${i}` }, '30m')));
      let next = 0;
      // 16 players' requests in flight at once, players taking turns (as the bench's relay load sends them).
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < AWARDS) {
            const i = next++;
            expect((await relay.call(tokens[i % PLAYERS]!)).status).toBe(200);
          }
        }),
      );
      return relay.stats();
    };
    const cached = await run({});
    expect(cached).toEqual({ hits: AWARDS - PLAYERS, misses: PLAYERS, size: PLAYERS });
    // Bounded below the number of active players, an LRU taken in turns keeps nothing useful: the bound matters.
    expect((await run({ tokenCacheSize: 100 })).hits).toBe(0);
    expect(await run({ tokenCacheSize: 0 })).toEqual({ hits: 0, misses: AWARDS, size: 0 });
  });
});
