// The economy on Cloudflare Workers: each player's rules live in one Durable Object (a shard of players by their
// sub), which handles one request at a time and keeps its keys in its storage: a reservation reads the keys it needs,
// decides with the same code as the memory store (store.ts reserveIn), and writes what changed, with no other request
// in between (the object's input gate stays closed across storage calls). Once markers and bans outlive an eviction.
import { ConfigError } from '../../kit/errors.js';
import { storeTag } from '../counter-store.js';
import type { DurableObjectNamespaceLike } from '../durable-object-store.js';
import type { BanList } from './contract.js';
import { type EconomyStore, type Held, type HeldKeys, type Reservation, releaseIn, reserveIn } from './store.js';

/** The part of a Durable Object's storage the economy object uses (typed here: no Workers types needed). */
export interface EconomyStorageLike {
  /** The stored values of these keys (absent keys are left out). */
  get(keys: string[]): Promise<Map<string, unknown>>;
  /** Stores every entry. */
  put(entries: Record<string, unknown>): Promise<void>;
  /** Deletes these keys; resolves to how many there were. */
  delete(keys: string[]): Promise<number>;
  /** Entries whose key starts with `prefix`. */
  list(options: { prefix: string }): Promise<Map<string, unknown>>;
}

/** Options of createDurableObjectEconomyStore. */
export interface DurableObjectEconomyStoreOptions {
  /** Players are spread over this many objects by their sub; default 16. */
  shards?: number;
}

type Op =
  | { op: 'reserve'; reservation: Reservation }
  | { op: 'release'; reservation: Reservation }
  | { op: 'ban'; player: string; reason?: string; at: number }
  | { op: 'unban'; player: string }
  | { op: 'bans' };

/**
 * The economy store on Workers: pass the namespace bound to `EconomyRules` (re-export that class from the Worker;
 * wrangler: `durable_objects.bindings = [{ name = "ECONOMY", class_name = "EconomyRules" }]` and a migration with
 * `new_sqlite_classes = ["EconomyRules"]`). Every relay isolate and location shares it. A failing object rejects: the
 * award is answered retry (503 `economy_unavailable`).
 */
export function createDurableObjectEconomyStore(namespace: DurableObjectNamespaceLike, options: DurableObjectEconomyStoreOptions = {}): EconomyStore {
  if (!namespace || typeof namespace.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new ConfigError('economyStore', 'invalid', 'createDurableObjectEconomyStore needs a Durable Object namespace binding (env.ECONOMY)');
  }
  const shards = options.shards ?? 16;
  if (!Number.isInteger(shards) || shards < 1) throw new ConfigError('shards', 'invalid', `shards must be a positive integer, got ${shards}`);
  const ids = Array.from({ length: shards }, (_, shard) => namespace.idFromName(`qp-economy-${shard}`));
  const call = async (shard: number, body: Op): Promise<unknown> => {
    // A stub per call: Workers bind a stub to the request that made it.
    const response = await namespace.get(ids[shard] as never).fetch('https://economy-rules/', { method: 'POST', body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`economy object answered ${response.status}`);
    return response.json();
  };
  const shardOfPlayer = (player: string) => shardOf(storeTag(player), shards);
  const bans: BanList = {
    async ban(player, reason) {
      await call(shardOfPlayer(player), { op: 'ban', player, at: Date.now(), ...(reason === undefined ? {} : { reason }) });
    },
    async unban(player) {
      await call(shardOfPlayer(player), { op: 'unban', player });
    },
    async list() {
      const pages = await Promise.all(ids.map((_, shard) => call(shard, { op: 'bans' })));
      return (pages as { player: string; at: number; reason?: string }[][]).flat();
    },
  };
  return {
    bans,
    reserve: async (reservation) => (await call(shardOfPlayer(reservation.owner), { op: 'reserve', reservation })) as never,
    async release(reservation) {
      await call(shardOfPlayer(reservation.owner), { op: 'release', reservation });
    },
  };
}

/** FNV-1a: the same player always lands on the same object. */
function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

/** Workers storage takes at most 128 keys in one get, put or delete call. */
const MAX_KEYS_PER_CALL = 128;
const BAN_PREFIX = 'qp:ban:';

/** The Durable Object class behind createDurableObjectEconomyStore (called by the store, not by players). */
export class EconomyRules {
  readonly #storage: EconomyStorageLike;

  /** Called by the Workers runtime with the object's state (its storage). */
  constructor(state: { storage: EconomyStorageLike }) {
    this.#storage = state.storage;
  }

  /** POST one operation (reserve, release, ban, unban, bans); 400 for anything else. */
  async fetch(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Op | null;
    switch (body?.op) {
      case 'reserve':
      case 'release':
        return Response.json(await this.#run(body.op, body.reservation));
      case 'ban':
        await this.#storage.put({ [`${BAN_PREFIX}${storeTag(body.player)}`]: { player: body.player, at: body.at, reason: body.reason } });
        return Response.json(null);
      case 'unban':
        await this.#storage.delete([`${BAN_PREFIX}${storeTag(body.player)}`]);
        return Response.json(null);
      case 'bans':
        return Response.json([...(await this.#storage.list({ prefix: BAN_PREFIX })).values()]);
      default:
        return Response.json({ success: false, message: 'body must be one economy operation' }, { status: 400 });
    }
  }

  /** Reads the reservation's keys, decides as the memory store does, writes back what changed. */
  async #run(op: 'reserve' | 'release', r: Reservation): Promise<unknown> {
    if (typeof r?.owner !== 'string' || typeof r.marker !== 'string' || !Array.isArray(r.budgets)) return { ok: true };
    const wanted = [
      r.ban,
      r.marker,
      ...(r.once === undefined ? [] : [r.once]),
      ...(r.cooldown ? [r.cooldown.key] : []),
      ...r.budgets.map((b) => b.key),
    ];
    const loaded = new Map<string, Held>();
    for (let at = 0; at < wanted.length; at += MAX_KEYS_PER_CALL) {
      for (const [key, value] of await this.#storage.get(wanted.slice(at, at + MAX_KEYS_PER_CALL))) loaded.set(key, value as Held);
    }
    const changed = new Map<string, Held | undefined>();
    const keys: HeldKeys = {
      get: (key) => (changed.has(key) ? changed.get(key) : loaded.get(key)),
      set: (key, held) => changed.set(key, held),
      delete: (key) => changed.set(key, undefined),
    };
    // A storage that keeps JSON (no Infinity) gives a once marker back with `expiresAt: null`: it never expires.
    for (const held of loaded.values()) if (held && held.expiresAt === null) held.expiresAt = Number.POSITIVE_INFINITY;
    const answer = op === 'reserve' ? reserveIn(keys, r, loaded.has(r.ban)) : releaseIn(keys, r);
    const puts = [...changed].filter(([, held]) => held !== undefined) as [string, Held][];
    const deletes = [...changed].filter(([, held]) => held === undefined).map(([key]) => key);
    if (puts.length) await this.#storage.put(Object.fromEntries(puts));
    if (deletes.length) await this.#storage.delete(deletes);
    return answer ?? null;
  }
}
