// GET /group-quests/:questId/leaderboard: the top N, the caller's rank and the K players around them, the group's
// total. A player token sees its own place (admin: any player's, `player=`). Names only: a player never reads another
// player's serviceUserId or e-mail (the hook's name, else a pseudonym). Strong ETag and 304; `private` caching, since
// the answer depends on the token (`you`, `around`): a CDN or shared proxy must not hand one player's answer to another.
import { Hono } from 'hono';
import * as v from 'valibot';
import { QuestIdSchema, ServiceUserIdSchema } from '../../protocol/index.js';
import { checkQuestAccess, checkUserAccess } from '../access.js';
import type { RelayEnv, RelayRuntime } from '../context.js';
import { fail } from '../respond.js';
import { check } from '../validate.js';
import type { LeaderboardRow } from './store.js';

/** The most rows `top` may ask for. */
export const MAX_LEADERBOARD_TOP = 100;
/** The most players either side `around` may ask for. */
export const MAX_LEADERBOARD_AROUND = 25;
const DEFAULT_TOP = 10;
const DEFAULT_AROUND = 2;
/**
 * Seconds a browser may reuse an answer without asking: short, so a rank lags an award by little; past it, a
 * conditional request (If-None-Match) costs a 304 with no body.
 */
export const LEADERBOARD_MAX_AGE_S = 2;

const count = (max: number) =>
  v.pipe(v.string(), v.regex(/^\d{1,6}$/, 'must be a whole number'), v.transform(Number), v.maxValue(max, `must be at most ${max}`));
const ParamsSchema = v.strictObject(
  { top: v.optional(count(MAX_LEADERBOARD_TOP)), around: v.optional(count(MAX_LEADERBOARD_AROUND)), player: v.optional(ServiceUserIdSchema) },
  'unknown parameter: use top, around, player',
);

/** One row as a player reads it: a name, never an id. */
interface ShownRow {
  rank: number;
  name: string;
  points: number;
  you?: true;
}

/** A stable pseudonym: the player's id hashed under the relay's key secret (keys.ts), 6 hex digits. */
const pseudonym = (runtime: RelayRuntime, player: string) => `Player ${runtime.upstreamKey('qp:leaderboard', player).replace(/-/g, '').slice(0, 6)}`;

/** The leaderboard route group; mounted once in app.ts, after authentication. */
export function leaderboardRoutes(runtime: RelayRuntime): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  app.get('/group-quests/:questId/leaderboard', async (c) => {
    const { leaderboard } = runtime;
    if (!leaderboard) return fail(c, { status: 404, message: 'the leaderboard is off on this relay (RelayOptions leaderboard)', code: 'route' });
    const quest = check(QuestIdSchema, c.req.param('questId'), 'questId ');
    if (!quest.ok) return fail(c, quest.refusal);
    const params = check(ParamsSchema, c.req.query(), 'query ');
    if (!params.ok) return fail(c, params.refusal);
    const claims = c.get('claims');
    const { role, sub } = claims;
    const { top = DEFAULT_TOP, around = DEFAULT_AROUND } = params.value;
    const questId = quest.value;
    // The same rule as a player's points: their own place, in their token's quests (an admin: anyone's, anywhere).
    const denied = params.value.player !== undefined ? checkUserAccess(claims, questId, params.value.player) : checkQuestAccess(claims, questId);
    if (denied) return fail(c, denied);
    // A player's own place; an admin's only when asked for one.
    const player = role === 'admin' ? params.value.player : sub;
    const { store } = leaderboard;
    let read: [LeaderboardRow[], Awaited<ReturnType<typeof store.around>> | null, Awaited<ReturnType<typeof store.group>>];
    try {
      read = await Promise.all([store.top(questId, top), player === undefined ? null : store.around(questId, player, around), store.group(questId)]);
    } catch (error) {
      return fail(c, {
        status: 503,
        message: `leaderboard store unavailable (${error instanceof Error ? error.name : 'error'}); try again shortly`,
        retryAfter: 1,
      });
    }
    const [best, place, group] = read;
    const show = (row: LeaderboardRow): ShownRow => ({
      rank: row.rank,
      name: leaderboard.name?.(row.player) ?? pseudonym(runtime, row.player),
      points: row.points,
      ...(row.player === player ? { you: true as const } : {}),
    });
    const data = {
      top: best.map(show),
      you: place?.you ? { rank: place.you.rank, points: place.you.points } : null,
      around: (place?.around ?? []).map(show),
      group,
    };
    const body = JSON.stringify({ success: true, data });
    const etag = `"${await digest(body)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', `private, max-age=${LEADERBOARD_MAX_AGE_S}`);
    c.header('Vary', 'Authorization');
    if (matches(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  return app;
}

/** The body's SHA-256, base64url, 22 characters (128 bits): the same body, the same tag, on every relay. */
async function digest(body: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)));
  return btoa(String.fromCharCode(...hash.subarray(0, 16)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** If-None-Match holds the tag (a list, `*`, or a weak form of it: the weak comparison RFC 9110 asks for there). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
