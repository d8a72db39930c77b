// The leaderboards in Redis: per quest, a sorted set of players by points (`qp:lb:{quest:<id>}:all`), the group's
// total (`...:total`) and the award keys already counted (`...:seen:<key>`, expiring). Every key of one quest carries
// the quest's hash tag, so the add script's keys are in one slot of a cluster. An add is one script (count the key
// once, ZINCRBY, INCRBYFLOAT); a read of the player's place is one script; top and group are plain commands.
// Reconciliation (leaderboard/reconcile.ts) sets a score (one script), holds a lease (`...:lease`, SET NX PX) and
// keeps its place in the enrolled-users list (`...:cursor`).
import { storeTag } from '../counter-store.js';
import { ranked, roundPoints, type LeaderboardReconcileStore, type LeaderboardRow, type LeaderboardStore } from '../leaderboard/store.js';
import type { RedisConnection } from './redis-connect.js';

type ScriptParser = { pushKey(key: string): void; push(value: string): void };
const keyed = (parser: ScriptParser, keys: string[], args: string[]) => {
  parser.push(String(keys.length));
  for (const key of keys) parser.pushKey(key);
  for (const arg of args) parser.push(arg);
};

/** KEYS[1] the board, KEYS[2] the total, KEYS[3] the award's seen marker; ARGV[1] points, ARGV[2] marker TTL ms, ARGV[3] '1' when keyed, ARGV[4] player. */
export const LEADERBOARD_ADD_SCRIPT = {
  SCRIPT: `if ARGV[3] == '1' and not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('ZINCRBY', KEYS[1], ARGV[1], ARGV[4])
redis.call('INCRBYFLOAT', KEYS[2], ARGV[1])
return 1`,
  parseCommand: keyed,
  transformReply: undefined as unknown as () => number,
};

/** KEYS[1] the board; ARGV[1] player, ARGV[2] k. Answers {} (not on the board) or {first position, players above it, rows}. */
export const LEADERBOARD_AROUND_SCRIPT = {
  SCRIPT: `local r = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not r then return {} end
local from = math.max(0, r - tonumber(ARGV[2]))
local rows = redis.call('ZREVRANGE', KEYS[1], from, r + tonumber(ARGV[2]), 'WITHSCORES')
return {from, redis.call('ZCOUNT', KEYS[1], '(' .. rows[2], '+inf'), rows}`,
  parseCommand: keyed,
  transformReply: undefined as unknown as () => unknown[],
};

/**
 * KEYS[1] the board, KEYS[2] the total; ARGV[1] points, ARGV[2] player, ARGV[3] '' (no check), '-' (expected absent)
 * or the expected score. Sets the score and moves the total by the difference, if the score is as expected.
 */
export const LEADERBOARD_SET_SCRIPT = {
  SCRIPT: `local current = redis.call('ZSCORE', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then
  if ARGV[3] == '-' then if current then return 0 end
  elseif not current or tonumber(current) ~= tonumber(ARGV[3]) then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCRBYFLOAT', KEYS[2], tonumber(ARGV[1]) - tonumber(current or '0'))
return 1`,
  parseCommand: keyed,
  transformReply: undefined as unknown as () => number,
};

/** KEYS[1] the lease; ARGV[1] owner, ARGV[2] TTL ms. Renews the owner's lease, or takes a free one (SET NX PX). */
export const LEADERBOARD_LEASE_SCRIPT = {
  SCRIPT: `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`,
  parseCommand: keyed,
  transformReply: undefined as unknown as () => number,
};

/** KEYS[1] the lease; ARGV[1] owner. Deletes it only if the owner still holds it. */
export const LEADERBOARD_RELEASE_SCRIPT = {
  SCRIPT: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
  parseCommand: keyed,
  transformReply: undefined as unknown as () => number,
};

/** How long an award's key is remembered (to count it once): 7 days, beyond any client's resend of an award. */
export const LEADERBOARD_KEY_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** `[player, score, player, score...]` (RESP2, and in a script) or `[[player, score]...]` (RESP3) into rows. */
const pairs = (reply: readonly unknown[]) => {
  const flat = reply.flat();
  const rows: { player: string; points: number }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) rows.push({ player: String(flat[i]), points: Number(flat[i + 1]) });
  return rows;
};

/** The Redis store on the counter store's connection (createRedisCounterStore(...).leaderboard). */
export function createRedisLeaderboardStore(redis: RedisConnection, prefix: string): LeaderboardStore & LeaderboardReconcileStore {
  const keys = (questId: string) => {
    const base = `${prefix}qp:lb:${storeTag(`quest:${questId}`)}`;
    return {
      board: `${base}:all`,
      total: `${base}:total`,
      seen: (key: string) => `${base}:seen:${key}`,
      lease: `${base}:lease`,
      cursor: `${base}:cursor`,
    };
  };
  return {
    async add(questId, player, points, key) {
      await redis.connected();
      const k = keys(questId);
      const args = [String(points), String(LEADERBOARD_KEY_TTL_MS), key === undefined ? '0' : '1', player];
      return (await redis.script<number>('leaderboardAdd', [[k.board, k.total, k.seen(key ?? '-')], args])) === 1;
    },
    async top(questId, n) {
      if (n < 1) return [];
      await redis.connected();
      const { board } = keys(questId);
      return ranked(pairs((await redis.send(board, ['ZREVRANGE', board, '0', String(n - 1), 'WITHSCORES'])) as unknown[]), 0, 1);
    },
    async around(questId, player, k) {
      await redis.connected();
      const { board } = keys(questId);
      const reply = await redis.script<unknown[]>('leaderboardAround', [[board], [player, String(k)]]);
      if (!reply.length) return { you: null, around: [] };
      const [from, above, flat] = reply as [number, number, unknown[]];
      const rows: LeaderboardRow[] = ranked(pairs(flat), Number(from), Number(above) + 1);
      return { you: rows.find((row) => row.player === player) ?? null, around: rows };
    },
    async score(questId, player) {
      await redis.connected();
      const { board } = keys(questId);
      const value = await redis.send(board, ['ZSCORE', board, player]);
      return value === null || value === undefined ? undefined : Number(value);
    },
    async set(questId, player, points, expected) {
      await redis.connected();
      const k = keys(questId);
      const check = expected === undefined ? '' : expected === null ? '-' : String(expected);
      return (
        (await redis.script<number>('leaderboardSet', [
          [k.board, k.total],
          [String(points), player, check],
        ])) === 1
      );
    },
    async lease(questId, owner, ttlMs) {
      await redis.connected();
      return (await redis.script<number>('leaderboardLease', [[keys(questId).lease], [owner, String(Math.max(1, Math.ceil(ttlMs)))]])) === 1;
    },
    async release(questId, owner) {
      await redis.connected();
      await redis.script<number>('leaderboardRelease', [[keys(questId).lease], [owner]]);
    },
    async cursor(questId) {
      await redis.connected();
      const { cursor } = keys(questId);
      const value = await redis.send(cursor, ['GET', cursor]);
      return value === null || value === undefined ? undefined : Number(value);
    },
    async saveCursor(questId, offset) {
      await redis.connected();
      const { cursor } = keys(questId);
      await redis.send(cursor, offset === undefined ? ['DEL', cursor] : ['SET', cursor, String(offset)]);
    },
    async group(questId) {
      await redis.connected();
      const { board, total } = keys(questId);
      // Issued together: one write, one round trip.
      const [players, sum] = await Promise.all([redis.send(board, ['ZCARD', board]), redis.send(total, ['GET', total])]);
      return { totalPoints: roundPoints(Number(sum ?? 0)), players: Number(players) };
    },
  };
}
