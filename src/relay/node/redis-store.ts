import { ConfigError } from '../../kit/errors.js';
import { storeTag, type CounterStore } from '../counter-store.js';
import type { IdempotencyRecordStore } from '../records.js';
import type { EconomyStore } from '../economy/store.js';
import { connectRedis } from './redis-connect.js';
import { ECONOMY_LUA, RELEASE_SCRIPT, RESERVE_SCRIPT, redisEconomyStore, reservationArgs, reserveAnswer } from './redis-economy.js';
import type { LedgerStore } from '../economy/contract.js';
import { createRedisLedgerStore, LEDGER_APPEND_SCRIPT, resolveRedisLedgerOptions, type RedisLedgerOptions } from './redis-ledger.js';
import type { WebhookStateStore } from '../economy/webhooks-state.js';
import type { LeaderboardStore } from '../leaderboard/store.js';
import {
  createRedisLeaderboardStore,
  LEADERBOARD_ADD_SCRIPT,
  LEADERBOARD_AROUND_SCRIPT,
  LEADERBOARD_LEASE_SCRIPT,
  LEADERBOARD_RELEASE_SCRIPT,
  LEADERBOARD_SET_SCRIPT,
} from './redis-leaderboard.js';
import { createRedisWebhookState } from './webhooks-redis.js';

// One round trip, atomic: the first hit of a window sets its expiry; a key that somehow lost its expiry gets
// one again (it would otherwise count forever). Leaves `count` and `ttl` (ms until the window ends) in Lua locals.
const COUNT_HIT = `local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end`;

type ScriptParser = { pushKey(key: string): void; push(value: string): void };
const windowArg = (windowMs: number) => String(Math.max(1, Math.ceil(windowMs)));

/** One hit: [hits so far, ms until the window ends]. */
const HIT_SCRIPT = {
  NUMBER_OF_KEYS: 1,
  SCRIPT: `${COUNT_HIT}
return { count, ttl }`,
  parseCommand(parser: ScriptParser, key: string, windowMs: number) {
    parser.pushKey(key);
    parser.push(windowArg(windowMs));
  },
  transformReply: undefined as unknown as () => [number, number],
};

// The same hit and, in the same round trip, the values of the idempotency record's keys (KEYS[2..]): a single award's
// per-player count and its record lookup cost one command instead of a script and an MGET. [hits, ms, value...].
const HIT_AND_GET_SCRIPT = {
  SCRIPT: `${COUNT_HIT}
local answer = { count, ttl }
for i = 2, #KEYS do
  answer[i + 1] = redis.call('GET', KEYS[i]) or false
end
return answer`,
  parseCommand(parser: ScriptParser, key: string, windowMs: number, keys: readonly string[]) {
    parser.push(String(1 + keys.length));
    parser.pushKey(key);
    for (const k of keys) parser.pushKey(k);
    parser.push(windowArg(windowMs));
  },
  transformReply: undefined as unknown as () => (number | string | null)[],
};

// The same hit and record lookup, and the economy's check-and-reserve (redis-economy.ts) in the same round trip, unless
// the hit is over the limit (ARGV[3]) or a record was found (a replay reserves nothing). KEYS: counter, ARGV[2] record
// keys, then the reservation's; ARGV: window, record keys, limit, then the reservation's. [hits, ms, value..., answer].
const HIT_GET_RESERVE_SCRIPT = {
  SCRIPT: `${ECONOMY_LUA}
${COUNT_HIT}
local records = tonumber(ARGV[2])
local answer = { count, ttl }
local found = false
for i = 2, 1 + records do
  local value = redis.call('GET', KEYS[i])
  answer[i + 1] = value or false
  if value then found = true end
end
if count <= tonumber(ARGV[3]) and not found then answer[records + 3] = economy(2 + records, 4) end
return answer`,
  parseCommand(
    parser: ScriptParser,
    key: string,
    windowMs: number,
    keys: readonly string[],
    limit: number,
    economy: { keys: string[]; args: string[] },
  ) {
    parser.push(String(1 + keys.length + economy.keys.length));
    parser.pushKey(key);
    for (const k of keys) parser.pushKey(k);
    for (const k of economy.keys) parser.pushKey(k);
    parser.push(windowArg(windowMs));
    parser.push(String(keys.length));
    parser.push(String(limit));
    for (const arg of economy.args) parser.push(arg);
  },
  transformReply: undefined as unknown as () => unknown[],
};

/** The store's Lua scripts' text, for a benchmark of what Redis does per award (bench/redis-capacity.bench.ts). */
export const REDIS_SCRIPTS = {
  hit: HIT_SCRIPT.SCRIPT,
  hitAndGet: HIT_AND_GET_SCRIPT.SCRIPT,
  hitGetReserve: HIT_GET_RESERVE_SCRIPT.SCRIPT,
  reserve: RESERVE_SCRIPT.SCRIPT,
} as const;

/** Options of createRedisCounterStore. */
export interface RedisCounterStoreOptions {
  /**
   * One server: redis://[user:pass@]host:port[/db] or rediss://. A Redis Cluster: redis+cluster://[user:pass@]host:port[,host:port...]
   * (or rediss+cluster:// for TLS), one or more of its nodes as seeds. Default process.env.QP_REDIS_URL.
   */
  url?: string;
  /** Prefix for every key, e.g. one per game on a shared Redis; default none (keys are `qp:rl:...`). No braces: they would replace the keys' hash tags. */
  prefix?: string;
  /** A command not answered within this fails (the relay then applies onStoreError); default 500 ms. */
  commandTimeoutMs?: number;
  /** Connection problems, at most one line per reconnect attempt; default a warning on stderr. */
  onConnectionError?: (message: string) => void;
  /** The ledger's stream (`.ledger`): its retention (default 30 days) and its cap on entries. */
  ledger?: RedisLedgerOptions;
}

/** The counter store on Redis, and the idempotency record on the same connection. */
export interface RedisCounterStore extends CounterStore {
  /**
   * The relay's idempotency record in the same Redis, on the same connection: a lookup issued beside the limiter's
   * script goes out in the same write (node-redis pipelines the commands of one tick). startRelay uses it.
   */
  records: IdempotencyRecordStore;
  /**
   * The economy rules' store and runtime bans in the same Redis (createRelay uses it by default): its check folds into
   * `records.getWithHit`, so a single award costs one round trip with the rules on or off.
   */
  economy: EconomyStore;
  /** The relay's ledger in a Redis stream (`qp:ledger`) on the same connection (RelayOptions `ledger`). startRelay uses it. */
  ledger: LedgerStore;
  /** Webhook delivery's cursors, pending deliveries, dead letters and lease in the same Redis (RelayOptions `webhooks.state`). */
  webhooks: WebhookStateStore;
  /** Each quest's leaderboard in a sorted set (`qp:lb:{quest:<id>}:all`) on the same connection (RelayOptions `leaderboard`). startRelay uses it. */
  leaderboard: LeaderboardStore;
}

/**
 * A CounterStore on Redis, one server or a Redis Cluster (node-redis, an optional peer dependency: `npm install redis`;
 * runs on Node, Bun and Deno): every relay instance pointed at the same Redis shares one counter per key. Connects in
 * the background and reconnects forever with backoff; while Redis is away, increment() fails at once (no offline
 * queue) and the relay applies its `onStoreError` ('open' or 'closed').
 *
 * Keys carry their owner's hash tag (`qp:rl:perPlayer:{alice}`, `qp:idem:{alice}:<upstream key>`), so a player's hit
 * and records, read in one script, are in one slot of a cluster.
 */
export async function createRedisCounterStore(options: RedisCounterStoreOptions = {}): Promise<RedisCounterStore> {
  const url = options.url ?? globalThis.process?.env?.QP_REDIS_URL;
  if (!url) throw new ConfigError('redis', 'missing', 'Redis URL is required: pass `url` or set QP_REDIS_URL');
  const prefix = options.prefix ?? '';
  if (/[{}]/.test(prefix))
    throw new ConfigError('prefix', 'invalid', "the Redis key prefix must not contain { or }: they would replace the keys' hash tags");
  const ledgerOptions = resolveRedisLedgerOptions(options.ledger);
  const redis = await connectRedis(url, {
    commandTimeoutMs: options.commandTimeoutMs ?? 500,
    report: options.onConnectionError ?? ((message: string) => console.error(`quest-points relay: ${message}`)),
    scripts: {
      hit: HIT_SCRIPT,
      hitAndGet: HIT_AND_GET_SCRIPT,
      hitGetReserve: HIT_GET_RESERVE_SCRIPT,
      reserve: RESERVE_SCRIPT,
      release: RELEASE_SCRIPT,
      ledgerAppend: LEDGER_APPEND_SCRIPT,
      leaderboardAdd: LEADERBOARD_ADD_SCRIPT,
      leaderboardAround: LEADERBOARD_AROUND_SCRIPT,
      leaderboardSet: LEADERBOARD_SET_SCRIPT,
      leaderboardLease: LEADERBOARD_LEASE_SCRIPT,
      leaderboardRelease: LEADERBOARD_RELEASE_SCRIPT,
    },
  });
  // The keys one lookup reads: each record under its owner's tag and, on one server, its key as versions before the
  // tag wrote it (read in the same command, so a record written before an upgrade still answers; those expire within
  // the record's TTL). A cluster never held those: the untagged lookup failed there with CROSSSLOT.
  const lookupKeys = (keys: readonly string[], owner: string) => {
    const tagged = keys.map((key) => prefix + taggedRecordKey(key, owner));
    return redis.cluster ? tagged : [...tagged, ...keys.map((key) => prefix + key)];
  };
  const merge = (keys: readonly string[], values: readonly unknown[]) =>
    keys.map((_, i) => {
      const value = values[i] ?? values[keys.length + i];
      return typeof value === 'string' ? value : undefined;
    });

  const records: IdempotencyRecordStore = {
    async get(keys, owner) {
      await redis.connected();
      const read = lookupKeys(keys, owner);
      return merge(keys, (await redis.send(read[0] as string, ['MGET', ...read])) as (string | null)[]);
    },
    async getWithHit(keys, counter, windowMs, owner, economy) {
      await redis.connected();
      const lookup = lookupKeys(keys, owner);
      if (!economy) {
        const [count, ttl, ...values] = await redis.script<(number | string | null)[]>('hitAndGet', [prefix + counter, windowMs, lookup]);
        return { hit: { count: Number(count), resetInMs: Math.max(0, Number(ttl)) }, records: merge(keys, values) };
      }
      const reply = await redis.script<unknown[]>('hitGetReserve', [
        prefix + counter,
        windowMs,
        lookup,
        economy.limit,
        reservationArgs(economy.reservation, prefix),
      ]);
      const [count, ttl] = reply as [number, number];
      const answer = reply[2 + lookup.length];
      const hit = { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
      const found = merge(keys, reply.slice(2, 2 + lookup.length));
      return answer === undefined || answer === null ? { hit, records: found } : { hit, records: found, economy: reserveAnswer(answer) };
    },
    async set(entries, ttlMs, owner) {
      await redis.connected();
      // Issued together: one write, one round trip.
      await Promise.all(
        entries.map(([key, record]) => {
          const tagged = prefix + taggedRecordKey(key, owner);
          return redis.send(tagged, ['SET', tagged, record, 'PX', String(Math.ceil(ttlMs))]);
        }),
      );
    },
  };
  return {
    records,
    economy: redisEconomyStore(redis, prefix, records),
    ledger: createRedisLedgerStore(redis, prefix, ledgerOptions),
    webhooks: createRedisWebhookState(redis, { prefix }),
    leaderboard: createRedisLeaderboardStore(redis, prefix),
    async increment(key, windowMs) {
      await redis.connected();
      const [count, ttl] = await redis.script<[number, number]>('hit', [prefix + key, windowMs]);
      return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
    },
    ready: () => redis.ready(),
    close: () => redis.close(),
  };
}

/** `qp:idem:<upstream key>` filed under its owner's tag: `qp:idem:{alice}:<upstream key>`. */
export const taggedRecordKey = (key: string, owner: string): string =>
  key.startsWith(RECORD_PREFIX) ? `${RECORD_PREFIX}${storeTag(owner)}:${key.slice(RECORD_PREFIX.length)}` : `${storeTag(owner)}:${key}`;
const RECORD_PREFIX = 'qp:idem:';
