import { ConfigError } from '../kit/errors.js';
import type { DurableObjectNamespaceLike } from './durable-object-store.js';
import type { IdempotencyRecordStore } from './records.js';

/** The part of a Durable Object's storage the record object uses (typed here: no Workers types needed). */
export interface DurableObjectStorageLike {
  /** The stored values of these keys (absent keys are left out). */
  get(keys: string[]): Promise<Map<string, unknown>>;
  /** Stores every entry. */
  put(entries: Record<string, unknown>): Promise<void>;
  /** Deletes these keys; resolves to how many there were. */
  delete(keys: string[]): Promise<number>;
  /** Up to `limit` entries in key order (newest first with `reverse`), after `startAfter`, under `prefix`. */
  list(options: { startAfter?: string; limit: number; reverse?: boolean; prefix?: string }): Promise<Map<string, unknown>>;
  /** When the object's alarm is set to ring, or null. */
  getAlarm(): Promise<number | null>;
  /** Sets the object's alarm (epoch ms): the runtime calls alarm() then. */
  setAlarm(at: number): Promise<void>;
}

/** Options of createDurableObjectRecordStore. */
export interface DurableObjectRecordStoreOptions {
  /** Records are spread over this many objects by key; default 16. */
  shards?: number;
}

/**
 * The idempotency record on Cloudflare Workers: records live in Durable Objects' storage (kept on disk, so a record
 * outlives the object's eviction), shared by every isolate of the Worker. Pass the namespace bound to
 * `IdempotencyRecords` (re-export that class from the Worker). A lookup asks each object holding some of the keys
 * once, the objects in parallel.
 */
export function createDurableObjectRecordStore(
  namespace: DurableObjectNamespaceLike,
  options: DurableObjectRecordStoreOptions = {},
): IdempotencyRecordStore {
  if (!namespace || typeof namespace.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new ConfigError('idempotency', 'invalid', 'createDurableObjectRecordStore needs a Durable Object namespace binding (env.IDEMPOTENCY)');
  }
  const shards = options.shards ?? 16;
  if (!Number.isInteger(shards) || shards < 1) throw new ConfigError('shards', 'invalid', `shards must be a positive integer, got ${shards}`);
  const ids = Array.from({ length: shards }, (_, shard) => namespace.idFromName(`qp-records-${shard}`));
  const call = async (shard: number, body: unknown) => {
    // A stub per call: Workers bind a stub to the request that made it.
    const response = await namespace.get(ids[shard] as never).fetch('https://idempotency-records/', { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`idempotency record object answered ${response.status}`);
    return response.json() as Promise<(string | null)[] | null>;
  };
  const byShard = <T>(items: readonly T[], keyOf: (item: T) => string) => {
    const groups = new Map<number, { item: T; at: number }[]>();
    items.forEach((item, at) => {
      const shard = shardOf(keyOf(item), shards);
      groups.set(shard, [...(groups.get(shard) ?? []), { item, at }]);
    });
    return groups;
  };
  return {
    async get(keys) {
      const found: (string | undefined)[] = new Array(keys.length).fill(undefined);
      await Promise.all(
        [...byShard(keys, (key) => key)].map(async ([shard, group]) => {
          const values = (await call(shard, { op: 'get', keys: group.map(({ item }) => item) })) ?? [];
          group.forEach(({ at }, i) => {
            found[at] = values[i] ?? undefined;
          });
        }),
      );
      return found;
    },
    async set(entries, ttlMs) {
      await Promise.all(
        [...byShard(entries, ([key]) => key)].map(([shard, group]) => call(shard, { op: 'set', entries: group.map(({ item }) => item), ttlMs })),
      );
    },
  };
}

/** FNV-1a: the same key always lands on the same object. */
function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

type Stored = { record: string; expiresAt: number };
const SWEEP_EVERY_MS = 60 * 60 * 1000;
const SWEEP_BATCH = 1000;
/** Workers storage takes at most 128 keys in one get, put or delete call. */
const MAX_KEYS_PER_CALL = 128;

/**
 * The Durable Object class behind createDurableObjectRecordStore: export it from the Worker and bind it (wrangler:
 * `durable_objects.bindings = [{ name = "IDEMPOTENCY", class_name = "IdempotencyRecords" }]`, plus a migration with
 * `new_sqlite_classes = ["IdempotencyRecords"]`). Records are in the object's storage; an expired one reads as none,
 * and an hourly alarm deletes expired ones, a thousand keys per pass (deleted 128 at a time, the storage's limit).
 */
export class IdempotencyRecords {
  readonly #storage: DurableObjectStorageLike;
  #cursor: string | undefined;

  /** Called by the Workers runtime with the object's state (its storage). */
  constructor(state: { storage: DurableObjectStorageLike }) {
    this.#storage = state.storage;
  }

  /** POST `{ op: 'get', keys }` answers the records (null where none); `{ op: 'set', entries, ttlMs }` stores them. */
  async fetch(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as { op?: unknown; keys?: unknown; entries?: unknown; ttlMs?: unknown } | null;
    const now = Date.now();
    if (body?.op === 'get' && Array.isArray(body.keys) && body.keys.every((key) => typeof key === 'string')) {
      const keys = body.keys as string[];
      const stored = new Map<string, unknown>();
      for (const chunk of chunks(keys)) for (const [key, value] of await this.#storage.get(chunk)) stored.set(key, value);
      return Response.json(
        (body.keys as string[]).map((key) => {
          const value = stored.get(key) as Stored | undefined;
          return value && value.expiresAt > now ? value.record : null;
        }),
      );
    }
    const entries = body?.entries;
    const ttlMs = body?.ttlMs;
    if (body?.op === 'set' && Array.isArray(entries) && typeof ttlMs === 'number' && ttlMs > 0) {
      const values: Record<string, Stored> = {};
      for (const entry of entries) {
        if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') return badRequest();
        values[entry[0]] = { record: entry[1], expiresAt: now + ttlMs };
      }
      for (const chunk of chunks(Object.keys(values))) await this.#storage.put(Object.fromEntries(chunk.map((key) => [key, values[key]])));
      if ((await this.#storage.getAlarm()) === null) await this.#storage.setAlarm(now + SWEEP_EVERY_MS);
      return Response.json(null);
    }
    return badRequest();
  }

  /** The hourly sweep: deletes the expired records among the next thousand keys, and comes back. */
  async alarm(): Promise<void> {
    const now = Date.now();
    const page = await this.#storage.list({ limit: SWEEP_BATCH, ...(this.#cursor ? { startAfter: this.#cursor } : {}) });
    const expired = [...page].filter(([, value]) => !((value as Stored).expiresAt > now)).map(([key]) => key);
    for (const chunk of chunks(expired)) await this.#storage.delete(chunk);
    this.#cursor = page.size === SWEEP_BATCH ? [...page.keys()].at(-1) : undefined;
    await this.#storage.setAlarm(now + (this.#cursor ? 1_000 : SWEEP_EVERY_MS));
  }
}

/** At most MAX_KEYS_PER_CALL at a time. */
function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += MAX_KEYS_PER_CALL) out.push(items.slice(at, at + MAX_KEYS_PER_CALL));
  return out;
}

const badRequest = () =>
  Response.json(
    { success: false, message: "body must be { op: 'get', keys: string[] } or { op: 'set', entries: [key, record][], ttlMs > 0 }" },
    { status: 400 },
  );
