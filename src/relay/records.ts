// The relay's idempotency record: an award the relay saw the service acknowledge is answered from the record, without
// calling the service, for as long as the record lives. The service's own memory of a key is of unknown length (the
// spec does not say); a player offline for days, or a phone that closed the game mid-request, resends long after.
import { ConfigError } from '../kit/errors.js';
import { KEY_REUSED_MESSAGE, type AwardBody } from '../protocol/index.js';
import { createLru } from './lru.js';
import type { CounterHit } from './counter-store.js';
import type { Refusal } from './policy.js';
import type { Reservation, ReserveAnswer } from './economy/store.js';

/**
 * Where records live. One round trip per call: `get` looks up every key of a request at once (Redis: one MGET,
 * pipelined with the rate limiter's script), `set` writes every acknowledged award of a request at once. Every key of
 * one call belongs to one `owner` (the token's subject: upstream keys are derived per player, keys.ts); a store on a
 * Redis Cluster files them under that owner's hash tag (storeTag) so the call stays in one slot. The keys themselves
 * (`qp:idem:<upstream key>`) are the same in every store and every version.
 */
export interface IdempotencyRecordStore {
  /** The records of these keys, in order; undefined where there is none (or it expired). Rejects when unavailable. */
  get(keys: readonly string[], owner: string): Promise<(string | undefined)[]>;
  /** Keep each [key, record] for ttlMs. */
  set(entries: readonly (readonly [key: string, record: string])[], ttlMs: number, owner: string): Promise<void>;
  /**
   * Optional, for a store that also counts the rate limits (Redis): one hit on a counter and the lookup in one round
   * trip. The pipeline uses it for a single award whose player's limit is counted in this same store. With `economy`
   * (a store whose EconomyStore `folds` into this one), the same call checks and reserves the award's economy rules,
   * unless the hit is over `limit` or a record was found (then nothing is reserved and `economy` is absent).
   */
  getWithHit?(
    keys: readonly string[],
    counter: string,
    windowMs: number,
    owner: string,
    economy?: { reservation: Reservation; limit: number },
  ): Promise<{ records: (string | undefined)[]; hit: CounterHit; economy?: ReserveAnswer }>;
}

/** RelayOptions `idempotency`: the record's store and how long a record is kept. */
export interface IdempotencyOptions {
  store: IdempotencyRecordStore;
  /** How long an acknowledged award is answered from the record; default DEFAULT_RECORD_TTL_MS (30 days). */
  ttlMs?: number;
}

/**
 * 30 days: the SDK keeps an unsent award in its outbox until it is sent (a player may come back after weeks), and
 * Stripe, whose idempotency keys the IETF draft follows, keeps them 24 hours, which is far shorter than a player's
 * absence. A month covers the absences that matter at a cost of about 245 bytes per award in Redis (measured, docs/relay/operate.md).
 */
export const DEFAULT_RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** One record: the award's fingerprint and the status the service acknowledged it with. */
interface RecordValue {
  f: string;
  s: number;
}

/** The record looked up for one award, as the pipeline answers it. */
export type RecordAnswer = { kind: 'replay'; status: number } | { kind: 'refused'; refusal: Refusal } | undefined;

/**
 * What "the same award" means under one key: its quest and the body the service is sent. Two 32-bit FNV-1a hashes
 * (not a cryptographic hash: the key is already the player's own, so a collision could only answer a player's own
 * different award as already applied, and finding one would gain nothing).
 */
export function fingerprintOf(questId: string, body: AwardBody): string {
  const text = JSON.stringify([questId, body.serviceUserId, body.eventPoints, body.eventName ?? null, body.eventDescription ?? null]);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The record's key of an award sent upstream under this key (the same in every store; Redis adds the owner's tag). */
export const recordKey = (upstreamKey: string) => `qp:idem:${upstreamKey}`;
export const encodeRecord = (fingerprint: string, status: number): string => JSON.stringify({ f: fingerprint, s: status } satisfies RecordValue);

/** A stored record read against the award now sent under its key: replay it, refuse it (422), or nothing known. */
export function readRecord(stored: string | undefined, fingerprint: string): RecordAnswer {
  if (stored === undefined) return undefined;
  let value: RecordValue;
  try {
    value = JSON.parse(stored) as RecordValue;
  } catch {
    return undefined;
  }
  if (typeof value?.f !== 'string' || typeof value.s !== 'number') return undefined;
  if (value.f !== fingerprint) return { kind: 'refused', refusal: { status: 422, message: KEY_REUSED_MESSAGE, code: 'key_conflict' } };
  return { kind: 'replay', status: value.s };
}

export function resolveIdempotency(options: IdempotencyOptions | false | undefined): { store: IdempotencyRecordStore; ttlMs: number } | undefined {
  if (!options) return undefined;
  if (typeof options.store?.get !== 'function' || typeof options.store.set !== 'function') {
    throw new ConfigError(
      'idempotency',
      'invalid',
      'idempotency.store must be an IdempotencyRecordStore (createMemoryRecordStore, createRedisCounterStore(...).records, createDurableObjectRecordStore)',
    );
  }
  const ttlMs = options.ttlMs ?? DEFAULT_RECORD_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 1)
    throw new ConfigError('idempotency', 'invalid', `idempotency.ttlMs must be a positive integer, got ${ttlMs}`);
  return { store: options.store, ttlMs };
}

/** Options of createMemoryRecordStore. */
export interface MemoryRecordStoreOptions {
  /** Most records kept; when full, one not read lately goes (second chance, lru.ts). Default 200,000. */
  maxKeys?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * Records in this isolate's memory: lost on restart and not shared between instances, so for one long-lived
 * instance or tests. Several instances share one record in Redis (createRedisCounterStore's `records`, startRelay's `redis`) or,
 * on Workers, in Durable Objects (createDurableObjectRecordStore).
 */
export function createMemoryRecordStore(options: MemoryRecordStoreOptions = {}): IdempotencyRecordStore {
  const now = options.now ?? Date.now;
  const records = createLru<string, { record: string; expiresAt: number }>(options.maxKeys ?? 200_000);
  return {
    async get(keys) {
      const at = now();
      return keys.map((key) => {
        const entry = records.get(key);
        if (entry && entry.expiresAt <= at) records.delete(key);
        return entry && entry.expiresAt > at ? entry.record : undefined;
      });
    },
    async set(entries, ttlMs) {
      const expiresAt = now() + ttlMs;
      for (const [key, record] of entries) records.set(key, { record, expiresAt });
    },
  };
}
