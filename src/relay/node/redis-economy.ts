// The economy store on Redis (one server or a Cluster): a reservation is checked and made in one Lua script, atomic
// for the player; every key it touches carries the player's hash tag (economy/plan.ts builds them), so on a Cluster the
// script runs in that player's slot. The limiter's script for a single award folds the same check in (HIT_GET_RESERVE
// in redis-store.ts): with the rules on, a single award still costs one round trip.
import type { BanList } from '../economy/contract.js';
import type { EconomyStore, Reservation, ReserveAnswer } from '../economy/store.js';
import { storeTag } from '../counter-store.js';
import type { RedisConnection } from './redis-connect.js';

/**
 * `economy(k, a)`: KEYS[k] ban, k+1 marker, k+2 once, k+3 cooldown, k+4... budgets; ARGV[a] id, a+1 now, a+2 once
 * (1/0), a+3 cooldown ms (0: none), a+4 marker ttl, a+5 budgets, then 4 per budget: limit, points, rolling ms (0: a
 * calendar window, the key is the window), ttl. Micro-points, integers. Answers {'ok'} or the refusal's name and facts.
 * The marker holds what was charged (`c<TAB>key<TAB>points` or `z<TAB>key<TAB>member` per line): a resend under the
 * same id passes, and a release undoes exactly that.
 */
export const ECONOMY_LUA = `local function economy(k, a)
  if redis.call('EXISTS', KEYS[k]) == 1 then return { 'banned' } end
  local id = ARGV[a]
  local now = tonumber(ARGV[a + 1])
  local once = ARGV[a + 2] == '1'
  local cool = tonumber(ARGV[a + 3])
  local n = tonumber(ARGV[a + 5])
  if not once and cool == 0 and n == 0 then return { 'ok' } end
  if redis.call('EXISTS', KEYS[k + 1]) == 1 then return { 'ok' } end
  if once then
    local holder = redis.call('GET', KEYS[k + 2])
    if holder then
      if holder == id then return { 'ok' } end
      return { 'once' }
    end
  end
  if cool > 0 then
    local holder = redis.call('GET', KEYS[k + 3])
    if holder and holder ~= id then return { 'cooldown', redis.call('PTTL', KEYS[k + 3]) } end
  end
  for i = 1, n do
    local key = KEYS[k + 3 + i]
    local b = a + 6 + (i - 1) * 4
    local rolling = tonumber(ARGV[b + 2])
    local used = 0
    if rolling > 0 then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - rolling)
      for _, member in ipairs(redis.call('ZRANGE', key, 0, -1)) do
        used = used + tonumber(string.match(member, '|(%d+)$'))
      end
    else
      used = tonumber(redis.call('GET', key) or '0')
    end
    if used + tonumber(ARGV[b + 1]) > tonumber(ARGV[b]) then return { 'budget', i - 1, used } end
  end
  if once then redis.call('SET', KEYS[k + 2], id) end
  if cool > 0 then redis.call('SET', KEYS[k + 3], id, 'PX', cool) end
  local charged = {}
  for i = 1, n do
    local key = KEYS[k + 3 + i]
    local b = a + 6 + (i - 1) * 4
    if tonumber(ARGV[b + 2]) > 0 then
      local member = id .. '|' .. ARGV[b + 1]
      redis.call('ZADD', key, now, member)
      redis.call('PEXPIRE', key, ARGV[b + 3])
      charged[i] = 'z\\t' .. key .. '\\t' .. member
    else
      redis.call('INCRBY', key, ARGV[b + 1])
      if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[b + 3]) end
      charged[i] = 'c\\t' .. key .. '\\t' .. ARGV[b + 1]
    end
  end
  if n > 0 then redis.call('SET', KEYS[k + 1], table.concat(charged, '\\n'), 'PX', ARGV[a + 4]) end
  return { 'ok' }
end`;

type ScriptParser = { pushKey(key: string): void; push(value: string): void };

/** A reservation as the script's keys and arguments (prefix on every key). */
export function reservationArgs(r: Reservation, prefix: string): { keys: string[]; args: string[] } {
  const marker = prefix + r.marker;
  // Absent once/cooldown keys are the marker again (a key of the same slot): the flags say they are not used.
  const keys = [prefix + r.ban, marker, r.once === undefined ? marker : prefix + r.once, r.cooldown ? prefix + r.cooldown.key : marker];
  const args = [
    r.id,
    String(r.now),
    r.once === undefined ? '0' : '1',
    String(r.cooldown?.ms ?? 0),
    String(Math.ceil(r.markerTtlMs)),
    String(r.budgets.length),
  ];
  for (const charge of r.budgets) {
    keys.push(prefix + charge.key);
    args.push(String(charge.limit), String(charge.points), String(charge.rollingMs ?? 0), String(Math.max(1, Math.ceil(charge.ttlMs))));
  }
  return { keys, args };
}

/** The script's answer as the store's. */
export function reserveAnswer(reply: unknown): ReserveAnswer {
  const [name, first, second] = reply as [string, number?, number?];
  switch (name) {
    case 'ok':
      return { ok: true };
    case 'banned':
    case 'once':
      return { ok: false, refused: name };
    case 'cooldown':
      return { ok: false, refused: 'cooldown', waitMs: Math.max(0, Number(first)) };
    case 'budget':
      return { ok: false, refused: 'budget', index: Number(first), used: Number(second) };
    default:
      throw new Error(`economy script answered ${JSON.stringify(name)}`);
  }
}

/** Check and reserve: one script, in the player's slot. */
export const RESERVE_SCRIPT = {
  SCRIPT: `${ECONOMY_LUA}
return economy(1, 1)`,
  parseCommand(parser: ScriptParser, keys: string[], args: string[]) {
    parser.push(String(keys.length));
    for (const key of keys) parser.pushKey(key);
    for (const arg of args) parser.push(arg);
  },
  transformReply: undefined as unknown as () => unknown,
};

/**
 * Undo one reservation: KEYS[1] marker, KEYS[2] once, KEYS[3] cooldown (each only if it still holds this id), ARGV[1]
 * id. The budgets as the marker recorded them (their window may be an earlier one than a resend's): a calendar count
 * decremented (never below 0, never revived once expired), a rolling member removed.
 */
export const RELEASE_SCRIPT = {
  SCRIPT: `for i = 2, 3 do
  if KEYS[i] ~= KEYS[1] and redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
local charged = redis.call('GET', KEYS[1])
if not charged then return 0 end
redis.call('DEL', KEYS[1])
for line in string.gmatch(charged, '[^\\n]+') do
  local kind, key, value = string.match(line, '^(%a)\\t([^\\t]+)\\t(.+)$')
  if kind == 'z' then
    redis.call('ZREM', key, value)
  elseif redis.call('EXISTS', key) == 1 then
    if redis.call('DECRBY', key, value) < 0 then redis.call('SET', key, '0', 'KEEPTTL') end
  end
end
return 1`,
  parseCommand(parser: ScriptParser, keys: string[], id: string) {
    parser.push(String(keys.length));
    for (const key of keys) parser.pushKey(key);
    parser.push(id);
  },
  transformReply: undefined as unknown as () => number,
};

/** The economy store on this connection (createRedisCounterStore's `economy`); `folds`: its record store. */
export function redisEconomyStore(redis: RedisConnection, prefix: string, folds: object): EconomyStore {
  const banKey = (player: string) => `${prefix}qp:ban:${storeTag(player)}`;
  const index = `${prefix}qp:bans`;
  const bans: BanList = {
    async ban(player, reason) {
      await redis.connected();
      const entry = JSON.stringify(reason === undefined ? { at: Date.now() } : { at: Date.now(), reason });
      // The player's key first: every relay's next script for this player reads it. The index is for list().
      await redis.send(banKey(player), ['SET', banKey(player), entry]);
      await redis.send(index, ['HSET', index, player, entry]);
    },
    async unban(player) {
      await redis.connected();
      await redis.send(banKey(player), ['DEL', banKey(player)]);
      await redis.send(index, ['HDEL', index, player]);
    },
    async list() {
      await redis.connected();
      const flat = (await redis.send(index, ['HGETALL', index])) as string[] | Record<string, string>;
      const pairs = Array.isArray(flat) ? flat.flatMap((_, i) => (i % 2 ? [] : [[flat[i], flat[i + 1]] as [string, string]])) : Object.entries(flat);
      return pairs.map(([player, entry]) => ({ player: player as string, ...(JSON.parse(entry as string) as { at: number; reason?: string }) }));
    },
  };
  return {
    bans,
    folds,
    async reserve(reservation) {
      await redis.connected();
      const { keys, args } = reservationArgs(reservation, prefix);
      return reserveAnswer(await redis.script('reserve', [keys, args]));
    },
    async release(r) {
      await redis.connected();
      const marker = prefix + r.marker;
      const keys = [marker, r.once === undefined ? marker : prefix + r.once, r.cooldown ? prefix + r.cooldown.key : marker];
      await redis.script('release', [keys, r.id]);
    },
  };
}
