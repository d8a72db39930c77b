// The leaderboards in Redis: per quest, a sorted set of players by points (`qp:lb:{quest:<id>}:all`), the group's
// total (`...:total`) and the award keys already counted (`...:seen:<key>`, expiring). Every key of one quest carries
// the quest's hash tag, so the add script's keys are in one slot of a cluster. An add is one script (count the key
// once, ZINCRBY, INCRBYFLOAT); a read of the player's place is one script; top and group are plain commands.
import { storeTag } from '../counter-store.js';
import { ranked, roundPoints, type LeaderboardRow, type LeaderboardStore } from '../leaderboard/store.js';
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
export function createRedisLeaderboardStore(redis: RedisConnection, prefix: string): LeaderboardStore {
  const keys = (questId: string) => {
    const base = `${prefix}qp:lb:${storeTag(`quest:${questId}`)}`;
    return { board: `${base}:all`, total: `${base}:total`, seen: (key: string) => `${base}:seen:${key}` };
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
    async group(questId) {
      await redis.connected();
      const { board, total } = keys(questId);
      // Issued together: one write, one round trip.
      const [players, sum] = await Promise.all([redis.send(board, ['ZCARD', board]), redis.send(total, ['GET', total])]);
      return { totalPoints: roundPoints(Number(sum ?? 0)), players: Number(players) };
    },
  };
}
