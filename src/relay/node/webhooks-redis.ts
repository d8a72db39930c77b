// The webhook delivery state on Redis (one server or a Cluster): cursors, pending deliveries, dead letters, gone
// endpoints and the lease, so relays pointed at one Redis deliver one at a time and a restarted relay resumes from
// the cursor. Every key carries one hash tag ({webhooks}): the scripts touch several at once, in one slot.
import { DEFAULT_MAX_DEAD, type DeadDelivery, type PendingDelivery, type WebhookStateStore } from '../economy/webhooks-state.js';
import type { RedisConnection } from './redis-connect.js';

// Take the lease when free or already ours (renewing it).
const LEASE = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end return 0`;
// KEYS: pending, due, count, cursor. ARGV: endpoint, cursor, then (member, json, dueAt) triples. The deliveries and
// the cursor move together: a crash never leaves the cursor past an entry not taken in.
const INTAKE = `for i = 3, #ARGV, 3 do
  if redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then redis.call('HINCRBY', KEYS[3], ARGV[1], 1) end
  redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i])
end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
return 0`;
// KEYS: pending, due. ARGV: now, limit. The due deliveries' JSON, then the next due time (or false).
const DUE = `local members = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
if #members > 0 then out = redis.call('HMGET', KEYS[1], unpack(members)) end
local nxt = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
out[#out + 1] = nxt[2] or false
return out`;
// KEYS: pending, due. ARGV: member, json, dueAt. Only a delivery still pending (not done or buried meanwhile).
const RESCHEDULE = `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
return 0`;
// KEYS: pending, due, count. ARGV: member, endpoint.
const DONE = `if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then redis.call('HINCRBY', KEYS[3], ARGV[2], -1) end
redis.call('ZREM', KEYS[2], ARGV[1])
return 0`;
// KEYS: pending, due, count, dead, deadBody. ARGV: member, endpoint, json, deadAt, maxDead.
const BURY = `${DONE.replace('return 0', '')}
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[3])
local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[5])
if over > 0 then
  for _, m in ipairs(redis.call('ZPOPMIN', KEYS[4], over)) do redis.call('HDEL', KEYS[5], m) end
end
return 0`;
// KEYS: pending, due, count, dead, deadBody, gone. ARGV: member, endpoint, json, now. Once: a concurrent replay finds it gone.
const REVIVE = `if redis.call('ZREM', KEYS[4], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[5], ARGV[1])
if redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) == 1 then redis.call('HINCRBY', KEYS[3], ARGV[2], 1) end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('SREM', KEYS[6], ARGV[2])
return 1`;

/** Options of createRedisWebhookState. */
export interface RedisWebhookStateOptions {
  /** The key prefix of the store it shares a connection with (RedisCounterStoreOptions `prefix`). */
  prefix?: string;
  /** Dead letters kept at most; default DEFAULT_MAX_DEAD. */
  maxDead?: number;
}

/** The webhook state on a Redis connection (createRedisCounterStore's `webhooks` uses its own). */
export function createRedisWebhookState(redis: RedisConnection, options: RedisWebhookStateOptions = {}): WebhookStateStore {
  const key = (name: string) => `${options.prefix ?? ''}qp:wh:{webhooks}:${name}`;
  const [lease, pending, due, count, cursor, dead, deadBody, gone] = ['lease', 'pending', 'due', 'count', 'cursor', 'dead', 'dead-body', 'gone'].map(
    key,
  ) as [string, string, string, string, string, string, string, string];
  const maxDead = options.maxDead ?? DEFAULT_MAX_DEAD;
  const member = (endpoint: string, id: string) => `${endpoint}\n${id}`;
  const run = async <T>(script: string, keys: string[], args: (string | number)[]): Promise<T> => {
    await redis.connected();
    return (await redis.send(keys[0] as string, ['EVAL', script, String(keys.length), ...keys, ...args.map(String)])) as T;
  };
  const call = async <T>(args: string[]): Promise<T> => {
    await redis.connected();
    return (await redis.send(args[1] as string, args)) as T;
  };
  const parse = <T>(json: string | null): T[] => (json ? [JSON.parse(json) as T] : []);
  const readDead = async (limit: number): Promise<DeadDelivery[]> => {
    const members = await call<string[]>(['ZRANGE', dead, '0', String(Math.max(0, Math.floor(limit)) - 1)]);
    if (members.length === 0) return [];
    return (await call<(string | null)[]>(['HMGET', deadBody, ...members])).flatMap((json) => parse<DeadDelivery>(json));
  };

  return {
    lease: async (owner, ttlMs) => (await run<number>(LEASE, [lease], [owner, Math.ceil(ttlMs)])) === 1,
    release: async (owner) => void (await run(RELEASE, [lease], [owner])),
    cursor: async (endpoint) => (await call<string | null>(['HGET', cursor, endpoint])) ?? undefined,
    async intake(endpoint, deliveries, next) {
      const triples = deliveries.flatMap((d) => [member(endpoint, d.id), JSON.stringify(d), d.dueAt]);
      await run(INTAKE, [pending, due, count, cursor], [endpoint, next, ...triples]);
    },
    pendingCount: async (endpoint) => Number((await call<string | null>(['HGET', count, endpoint])) ?? 0),
    async due(now, limit) {
      const out = await run<(string | null)[]>(DUE, [pending, due], [now, Math.max(0, Math.floor(limit))]);
      const next = out.pop();
      const found = out.flatMap((json) => parse<PendingDelivery>(json));
      return typeof next === 'string' ? { due: found, nextAt: Number(next) } : { due: found };
    },
    reschedule: async (d) => void (await run(RESCHEDULE, [pending, due], [member(d.endpoint, d.id), JSON.stringify(d), d.dueAt])),
    done: async (endpoint, id) => void (await run(DONE, [pending, due, count], [member(endpoint, id), endpoint])),
    bury: async (d) =>
      void (await run(BURY, [pending, due, count, dead, deadBody], [member(d.endpoint, d.id), d.endpoint, JSON.stringify(d), d.deadAt, maxDead])),
    dead: readDead,
    async revive(selection, now) {
      const ids = 'ids' in selection ? new Set(selection.ids) : undefined;
      // Read whole (bounded by maxDead), chosen here, each moved by its own script: a delivery revived once.
      const all = await readDead(maxDead);
      let revived = 0;
      for (const d of all) {
        if (ids && !ids.has(d.id)) continue;
        const { deadAt: _, lastError: __, ...rest } = d;
        const json = JSON.stringify({ ...rest, attempts: 0, dueAt: now });
        revived += await run<number>(REVIVE, [pending, due, count, dead, deadBody, gone], [member(d.endpoint, d.id), d.endpoint, json, now]);
      }
      if (!ids) await call(['DEL', gone]);
      return revived;
    },
    isGone: async (endpoint) => (await call<number>(['SISMEMBER', gone, endpoint])) === 1,
    markGone: async (endpoint) => void (await call(['SADD', gone, endpoint])),
  };
}
