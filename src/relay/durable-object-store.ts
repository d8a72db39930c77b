import { ConfigError } from '../kit/errors.js';
import type { CounterHit, CounterStore } from './counter-store.js';
import { createMemoryCounterStore } from './counter-store.js';

/** The part of a Durable Object namespace binding the store uses (typed here: no Workers types needed). */
export interface DurableObjectNamespaceLike {
  /** The id of the object with this name (the same name, the same object). */
  idFromName(name: string): unknown;
  /** A stub of the object with this id. */
  get(id: never): {
    /** A request to the object. */
    fetch(input: string, init?: RequestInit): Promise<Response>;
  };
}

/** Options of createDurableObjectCounterStore. */
export interface DurableObjectCounterStoreOptions {
  /**
   * Counters are spread over this many objects by key (each object counts its keys in memory, one request at a
   * time); default 16. Raise it when one object's throughput (about a thousand hits a second) is not enough.
   */
  shards?: number;
}

const DEFAULT_SHARDS = 16;

/**
 * A CounterStore for Cloudflare Workers: the counters live in Durable Objects, so every isolate and every
 * location of the Worker counts against the same limit. Pass the namespace bound to `RateLimitCounter`
 * (re-export that class from the Worker). A failing object rejects, and the relay applies `onStoreError`.
 */
export function createDurableObjectCounterStore(namespace: DurableObjectNamespaceLike, options: DurableObjectCounterStoreOptions = {}): CounterStore {
  if (!namespace || typeof namespace.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new ConfigError('rateLimitStore', 'invalid', 'createDurableObjectCounterStore needs a Durable Object namespace binding (env.RATE_LIMITS)');
  }
  const shards = options.shards ?? DEFAULT_SHARDS;
  if (!Number.isInteger(shards) || shards < 1) throw new ConfigError('shards', 'invalid', `shards must be a positive integer, got ${shards}`);
  const ids = Array.from({ length: shards }, (_, shard) => namespace.idFromName(`qp-counters-${shard}`));
  return {
    async increment(key, windowMs) {
      // A stub per call: Workers bind a stub to the request that made it, and the relay outlives its first request.
      const stub = namespace.get(ids[shardOf(key, shards)] as never);
      const response = await stub.fetch('https://rate-limit-counter/increment', {
        method: 'POST',
        body: JSON.stringify({ key, windowMs }),
      });
      if (!response.ok) throw new Error(`rate-limit counter object answered ${response.status}`);
      return (await response.json()) as CounterHit;
    },
  };
}

/** FNV-1a: the same key always lands on the same object. */
function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

/**
 * The Durable Object class behind createDurableObjectCounterStore: export it from the Worker and bind it
 * (wrangler: `durable_objects.bindings = [{ name = "RATE_LIMITS", class_name = "RateLimitCounter" }]`, plus a
 * migration with `new_sqlite_classes = ["RateLimitCounter"]`). Counts in the object's memory, bounded like the
 * in-memory store: no storage write per hit. An object Cloudflare evicts after it sat idle starts its windows
 * afresh, so a limit can only be counted low after a quiet spell, never high.
 */
export class RateLimitCounter {
  readonly #counters = createMemoryCounterStore();

  /** One hit: POST `{ key, windowMs }` answers the CounterHit, 400 for any other body (called by the store, not by players). */
  async fetch(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as { key?: unknown; windowMs?: unknown } | null;
    const key = body?.key;
    const windowMs = body?.windowMs;
    if (typeof key !== 'string' || typeof windowMs !== 'number' || !(windowMs > 0)) {
      return Response.json({ success: false, message: 'body must be { key: string, windowMs: number > 0 }' }, { status: 400 });
    }
    return Response.json(await this.#counters.increment(key, windowMs));
  }
}
