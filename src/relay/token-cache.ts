import { LRUCache } from 'lru-cache';
import { ConfigError } from '../kit/errors.js';
import type { VerifiedClaims } from './claims.js';

/** Players active at once on one relay, each with the token it repeats: a few MB at most. */
export const DEFAULT_TOKEN_CACHE_SIZE = 10_000;

export interface TokenCacheStats {
  hits: number;
  misses: number;
  size: number;
}

export interface TokenCache {
  /** The key a token is cached under: SHA-256 of it, so no token is held as a key. */
  keyOf(token: string): Promise<string>;
  /** The claims (and exp) of a token verified before and still within its lifetime, else undefined. */
  get(key: string): { claims: VerifiedClaims; exp: number } | undefined;
  /** Only a verified token: until its exp, and never longer than maxTokenAgeSeconds from now. */
  set(key: string, claims: VerifiedClaims, exp: number): void;
  stats(): TokenCacheStats;
}

/**
 * Verified tokens, so a player's repeated awards cost a lookup instead of a signature check (a collision would need
 * one in SHA-256). Each relay instance builds its own next to its configured secrets and key set, so a secret removed
 * (a restart without it) leaves no entry behind. A failed verification never enters. `size` 0 turns caching off.
 */
export function createTokenCache(size: number, maxTokenAgeSeconds: number): TokenCache {
  const stats = { hits: 0, misses: 0 };
  const entries = size > 0 ? new LRUCache<string, { claims: VerifiedClaims; exp: number; until: number }>({ max: size }) : undefined;
  return {
    keyOf: digest,
    get(key) {
      const entry = entries?.get(key);
      // Checked against the wall clock on every read, as jose checks exp: a stale entry is never served.
      if (entry && Date.now() < entry.until) {
        stats.hits++;
        return { claims: entry.claims, exp: entry.exp };
      }
      if (entry) entries?.delete(key);
      stats.misses++;
      return undefined;
    },
    set(key, claims, exp) {
      const until = Math.min(exp * 1000, Date.now() + maxTokenAgeSeconds * 1000);
      if (until > Date.now()) entries?.set(key, { claims, exp, until });
    },
    stats: () => ({ ...stats, size: entries?.size ?? 0 }),
  };
}

async function digest(token: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  // 32 bytes as 32 code units: a compact map key, never shown anywhere.
  return String.fromCharCode(...hash);
}

export function checkTokenCacheSize(value: number | undefined): number {
  if (value === undefined) return DEFAULT_TOKEN_CACHE_SIZE;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError('tokenCacheSize', 'invalid', `tokenCacheSize must be a non-negative integer (0 turns the cache off), got ${value}`);
  }
  return value;
}
