// The ledger on Cloudflare Workers: one Durable Object (`qp-ledger`) holds the entries in its storage, in id order
// (keys are the ids, zero-padded so their text order is their time order). Every isolate of the Worker appends to it
// and reads from it; it assigns the ids (`<ms>-<seq>`, as Redis does), and an hourly alarm drops what is older than
// the retention. Storage calls carry at most 128 keys (Cloudflare's limit).
import { ConfigError } from '../../kit/errors.js';
import type { DurableObjectStorageLike } from '../durable-object-records.js';
import type { DurableObjectNamespaceLike } from '../durable-object-store.js';
import type { LedgerDraft, LedgerEntry, LedgerQuery, LedgerStore } from './contract.js';
import { DEFAULT_LEDGER_RETENTION_MS, idParts, LEDGER_ID, matches, pageSize, pastEnd } from './query.js';

/** Options of createDurableObjectLedgerStore. */
export interface DurableObjectLedgerOptions {
  /** Entries older than this are dropped by the object's hourly alarm; default DEFAULT_LEDGER_RETENTION_MS (30 days). */
  retentionMs?: number;
}

/**
 * The ledger store on Workers: pass the namespace bound to `LedgerObject` (re-export that class from the Worker;
 * wrangler: `durable_objects.bindings = [{ name = "LEDGER", class_name = "LedgerObject" }]` and a migration with
 * `new_sqlite_classes = ["LedgerObject"]`). One object: a ledger's appends are few (one per tick of an isolate).
 */
export function createDurableObjectLedgerStore(namespace: DurableObjectNamespaceLike, options: DurableObjectLedgerOptions = {}): LedgerStore {
  if (!namespace || typeof namespace.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new ConfigError('ledger', 'invalid', 'createDurableObjectLedgerStore needs a Durable Object namespace binding (env.LEDGER)');
  }
  const retentionMs = options.retentionMs ?? DEFAULT_LEDGER_RETENTION_MS;
  if (!(retentionMs > 0))
    throw new ConfigError('ledger.retentionMs', 'invalid', `ledger.retentionMs must be a positive number of ms, got ${retentionMs}`);
  const id = namespace.idFromName('qp-ledger');
  const call = async <T>(body: unknown): Promise<T> => {
    // A stub per call: Workers bind a stub to the request that made it.
    const response = await namespace.get(id as never).fetch('https://ledger/', { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`ledger object answered ${response.status}`);
    return response.json() as Promise<T>;
  };
  return {
    append: (drafts) => (drafts.length ? call<string[]>({ op: 'append', drafts, retentionMs }) : Promise.resolve([])),
    read: (query) => call<{ entries: LedgerEntry[]; next?: string }>({ op: 'read', query }),
  };
}

/** Workers storage takes at most 128 keys in one get, put or delete call. */
const MAX_KEYS_PER_CALL = 128;
/** Entries listed per storage call when reading, and calls per read. */
const LIST_PAGE = 500;
const LISTS_PER_READ = 10;
const TRIM_EVERY_MS = 60 * 60 * 1000;
const TRIM_BATCH = 1000;

/** The storage key of an id: fixed width, so keys sort as ids do. */
const keyOf = (id: string) => {
  const [ms, seq] = idParts(id);
  return `e:${String(ms).padStart(15, '0')}-${String(seq).padStart(9, '0')}`;
};
const idOf = (key: string) => `${Number(key.slice(2, 17))}-${Number(key.slice(18))}`;

/**
 * The Durable Object class behind createDurableObjectLedgerStore: POST `{ op: 'append', drafts, retentionMs }`
 * answers the ids, `{ op: 'read', query }` a page. Export it from the Worker and bind it.
 */
export class LedgerObject {
  readonly #storage: DurableObjectStorageLike;
  #lastMs = -1;
  #seq = 0;
  /** Each append says it (an alarm that rings after an eviction, before any append, keeps the default: longer). */
  #retentionMs = DEFAULT_LEDGER_RETENTION_MS;

  /** Called by the Workers runtime with the object's state (its storage). */
  constructor(state: { storage: DurableObjectStorageLike }) {
    this.#storage = state.storage;
  }

  /** One store operation: POST `{ op: 'append', drafts }` or `{ op: 'read', query }` from createDurableObjectLedgerStore (not for players). */
  async fetch(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as { op?: unknown; drafts?: unknown; retentionMs?: unknown; query?: unknown } | null;
    if (body?.op === 'append' && Array.isArray(body.drafts) && body.drafts.every((d) => typeof d === 'object' && d !== null)) {
      if (typeof body.retentionMs === 'number' && body.retentionMs > 0) this.#retentionMs = body.retentionMs;
      return Response.json(await this.#append(body.drafts as LedgerDraft[]));
    }
    const query = body?.query as LedgerQuery | undefined;
    if (body?.op === 'read' && typeof query === 'object' && query !== null && (query.after === undefined || LEDGER_ID.test(String(query.after)))) {
      return Response.json(await this.#read(query));
    }
    return Response.json({ success: false, message: "body must be { op: 'append', drafts: [...] } or { op: 'read', query }" }, { status: 400 });
  }

  async #append(drafts: LedgerDraft[]): Promise<string[]> {
    if (this.#lastMs < 0) {
      // After an eviction: go on after the newest stored id, never reusing one.
      const newest = [...(await this.#storage.list({ limit: 1, reverse: true, prefix: 'e:' })).keys()][0];
      if (newest) [this.#lastMs, this.#seq] = idParts(idOf(newest));
    }
    const ids: string[] = [];
    const values: [string, LedgerEntry][] = [];
    for (const draft of drafts) {
      const ms = Math.max(Date.now(), this.#lastMs);
      this.#seq = ms === this.#lastMs ? this.#seq + 1 : 0;
      this.#lastMs = ms;
      const id = `${ms}-${this.#seq}`;
      ids.push(id);
      values.push([keyOf(id), { ...draft, id }]);
    }
    for (let at = 0; at < values.length; at += MAX_KEYS_PER_CALL)
      await this.#storage.put(Object.fromEntries(values.slice(at, at + MAX_KEYS_PER_CALL)));
    if ((await this.#storage.getAlarm()) === null) await this.#storage.setAlarm(Date.now() + TRIM_EVERY_MS);
    return ids;
  }

  async #read(query: LedgerQuery): Promise<{ entries: LedgerEntry[]; next?: string }> {
    const limit = pageSize(query);
    const found: LedgerEntry[] = [];
    let startAfter = query.after === undefined ? (query.from === undefined ? 'e:' : keyOf(`${query.from - 1}-999999999`)) : keyOf(query.after);
    for (let lists = 0; lists < LISTS_PER_READ; lists++) {
      const page = await this.#storage.list({ startAfter, limit: LIST_PAGE });
      for (const [key, value] of page) {
        if (!key.startsWith('e:')) continue;
        const entry = value as LedgerEntry;
        if (pastEnd(entry.id, query)) return { entries: found };
        if (matches(entry, query)) found.push(entry);
        if (found.length >= limit) return { entries: found, next: entry.id };
        startAfter = key;
      }
      if (page.size < LIST_PAGE) return { entries: found };
    }
    return { entries: found, next: idOf(startAfter) };
  }

  /** The hourly trim: deletes entries older than the retention, a thousand per pass, and comes back. */
  async alarm(): Promise<void> {
    const cutoff = Date.now() - this.#retentionMs;
    const page = await this.#storage.list({ startAfter: 'e:', limit: TRIM_BATCH });
    const old = [...page].filter(([key, value]) => key.startsWith('e:') && (value as LedgerEntry).at < cutoff).map(([key]) => key);
    for (let at = 0; at < old.length; at += MAX_KEYS_PER_CALL) await this.#storage.delete(old.slice(at, at + MAX_KEYS_PER_CALL));
    // A full page of old entries: there may be more right behind them.
    await this.#storage.setAlarm(Date.now() + (old.length === TRIM_BATCH ? 1_000 : TRIM_EVERY_MS));
  }
}
