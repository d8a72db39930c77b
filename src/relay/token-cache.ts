import { ConfigError } from '../kit/errors.js';
import type { VerifiedClaims } from './claims.js';
import { createLru } from './lru.js';

/** Players active at once on one relay, each with the token it repeats: a few MB at most. */
export const DEFAULT_TOKEN_CACHE_SIZE = 10_000;

/**
 * Longer tokens are verified every time, never held: the cache's memory stays under its bound x this many bytes
 * (10 000 x 2 KB = 20 MB), whatever size a header may have. The relay's own tokens are 170-300 characters, identity
 * providers' about 1 KB.
 */
export const MAX_CACHED_TOKEN_LENGTH = 2048;

export interface TokenCacheStats {
  hits: number;
  misses: number;
  size: number;
}

export interface TokenCache {
  /** The key a token is cached under: the token itself (a hash would cost as much as the signature check it saves). */
  keyOf(token: string): string;
  /** The claims (and exp) of a token verified before and still within its lifetime (a hit), else undefined. */
  get(key: string): { claims: VerifiedClaims; exp: number } | undefined;
  /**
   * `verify` for a token not in the cache (a miss), at most one at a time per token: a request for a token whose
   * check is under way shares that check (a hit). A lookup costs no more than a Map read, so without this a player's
   * next award overtakes the first one's signature check and verifies the same token again.
   */
  verifyOnce<T>(key: string, verify: () => Promise<T>): Promise<T>;
  /** Only a verified token: until its exp, and never longer than maxTokenAgeSeconds from now. */
  set(key: string, claims: VerifiedClaims, exp: number): void;
  stats(): TokenCacheStats;
}

/**
 * Verified tokens, so a player's repeated awards cost a lookup instead of a signature check. Keyed by the token string:
 * an exact match, no collision to reason about, and no per-request hash (SHA-256 through crypto.subtle was a WebCrypto
 * job per request, 10-13 % of the relay's busy time, about what the cache saved). Each relay instance builds its own
 * next to its configured secrets and key set, so a secret removed (a restart without it) leaves no entry behind. A
 * failed verification never enters. `size` 0 turns caching off.
 */
export function createTokenCache(size: number, maxTokenAgeSeconds: number): TokenCache {
  const stats = { hits: 0, misses: 0 };
  // Only while a check runs: bounded by the requests in flight.
  const inFlight = new Map<string, Promise<unknown>>();
  const entries = size > 0 ? createLru<string, { claims: VerifiedClaims; exp: number; until: number }>(size) : undefined;
  return {
    keyOf: (token) => token,
    get(key) {
      const entry = entries?.get(key);
      // Checked against the wall clock on every read, as jose checks exp: a stale entry is never served.
      if (entry && Date.now() < entry.until) {
        stats.hits++;
        return { claims: entry.claims, exp: entry.exp };
      }
      if (entry) entries?.delete(key);
      return undefined;
    },
    verifyOnce<T>(key: string, verify: () => Promise<T>): Promise<T> {
      const running = entries ? (inFlight.get(key) as Promise<T> | undefined) : undefined;
      if (running !== undefined) {
        stats.hits++;
        return running;
      }
      stats.misses++;
      const check = verify();
      if (!entries) return check;
      inFlight.set(key, check);
      const done = () => {
        inFlight.delete(key);
      };
      check.then(done, done);
      return check;
    },
    set(key, claims, exp) {
      const until = Math.min(exp * 1000, Date.now() + maxTokenAgeSeconds * 1000);
      if (until > Date.now() && key.length <= MAX_CACHED_TOKEN_LENGTH) entries?.set(key, { claims, exp, until });
    },
    stats: () => ({ ...stats, size: entries?.size ?? 0 }),
  };
}

export function checkTokenCacheSize(value: number | undefined): number {
  if (value === undefined) return DEFAULT_TOKEN_CACHE_SIZE;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError('tokenCacheSize', 'invalid', `tokenCacheSize must be a non-negative integer (0 turns the cache off), got ${value}`);
  }
  return value;
}
