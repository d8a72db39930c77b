// The operator's routes under /admin (an admin token: a relay token with role "admin"): the ledger as NDJSON,
// reversals, and runtime bans. A player token is refused 403; every query parameter and body field is checked and
// bounded (400 names it). Mounted once in app.ts, after authentication.
import { Hono } from 'hono';
import * as v from 'valibot';
import { EventNameSchema, QuestIdSchema, ServiceUserIdSchema } from '../../protocol/index.js';
import type { RelayContext, RelayEnv, RelayRuntime } from '../context.js';
import { jsonBody } from '../hygiene.js';
import { fail } from '../respond.js';
import { check } from '../validate.js';
import type { BanList, LedgerOutcome, LedgerQuery } from './contract.js';
import { LEDGER_ID, MAX_LEDGER_PAGE } from './query.js';
import { reverseAward } from './reversal.js';
import { webhookAdminRoutes } from './webhooks-admin.js';

/** The most entries one GET /admin/ledger streams (its `limit`); follow the final `{"next"}` line for more. */
export const MAX_LEDGER_EXPORT = 10_000;
const DEFAULT_LEDGER_EXPORT = 1000;
const ADMIN_BODY_BYTES = 4096;
const OUTCOMES: readonly LedgerOutcome[] = ['forwarded', 'acknowledged', 'refused', 'failed', 'reversed', 'banned', 'unbanned'];

/** A time: ms since the epoch, or ISO 8601 with an offset. */
const TimeSchema = v.pipe(
  v.string(),
  v.maxLength(40, 'must be at most 40 characters'),
  v.transform((text) => (/^\d{1,15}$/.test(text) ? Number(text) : Date.parse(text))),
  v.number(),
  v.check((ms) => Number.isFinite(ms), 'must be ms since the epoch or an ISO 8601 time such as 2026-11-28T00:00:00Z'),
);
const LedgerParamsSchema = v.strictObject(
  {
    player: v.optional(ServiceUserIdSchema),
    quest: v.optional(QuestIdSchema),
    event: v.optional(EventNameSchema),
    outcome: v.optional(v.picklist(OUTCOMES, `must be one of ${OUTCOMES.join(', ')}`)),
    from: v.optional(TimeSchema),
    to: v.optional(TimeSchema),
    after: v.optional(v.pipe(v.string(), v.regex(LEDGER_ID, 'must be an entry id such as 1764288000000-0 (the previous page\'s "next")'))),
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,6}$/, 'must be a whole number'),
        v.transform(Number),
        v.minValue(1, 'must be at least 1'),
        v.maxValue(MAX_LEDGER_EXPORT, `must be at most ${MAX_LEDGER_EXPORT}`),
      ),
    ),
  },
  'unknown parameter: use player, quest, event, outcome, from, to, after, limit',
);
const ReversalSchema = v.strictObject(
  { questId: QuestIdSchema, key: v.pipe(v.string('must be a string'), v.uuid("must be the award's key as the ledger shows it (a UUID)")) },
  'unknown field: a reversal is { questId, key }',
);
const BanSchema = v.strictObject(
  { player: ServiceUserIdSchema, reason: v.optional(v.pipe(v.string('must be a string'), v.maxLength(256, 'must be at most 256 characters'))) },
  'unknown field: a ban is { player, reason? }',
);

/** The runtime bans (the economy's BanList, shared by every relay on its store), when the relay has them. */
const bansOf = (runtime: RelayRuntime): BanList | undefined => runtime.economy?.bans;

/** GET /admin/ledger, POST /admin/reversals, POST|GET /admin/bans, DELETE /admin/bans/:player, /admin/webhooks/... (webhooks-admin.ts). */
export function adminRoutes(runtime: RelayRuntime): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  const body = jsonBody(ADMIN_BODY_BYTES);
  app.use('/admin/*', async (c, next) => {
    const { role, sub } = c.get('claims');
    if (role !== 'admin') {
      return fail(c, {
        status: 403,
        message: `the admin API needs an admin token (role "admin"); this token (sub ${JSON.stringify(sub)}) is a player's`,
      });
    }
    await next();
  });
  const noLedger = (c: RelayContext) => fail(c, { status: 404, message: 'the ledger is off on this relay (RelayOptions ledger)', code: 'route' });
  const noBans = (c: RelayContext) => fail(c, { status: 404, message: 'runtime bans are off on this relay (no ban list)', code: 'route' });

  app.get('/admin/ledger', async (c) => {
    const { ledger } = runtime;
    if (!ledger) return noLedger(c);
    const params = check(LedgerParamsSchema, c.req.query(), 'query ');
    if (!params.ok) return fail(c, params.refusal);
    const { player, quest, event, outcome, from, to, after, limit = DEFAULT_LEDGER_EXPORT } = params.value;
    const query: LedgerQuery = {
      ...(player !== undefined ? { player } : {}),
      ...(quest !== undefined ? { questId: quest } : {}),
      ...(event !== undefined ? { eventName: event } : {}),
      ...(outcome !== undefined ? { outcome } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(after !== undefined ? { after } : {}),
    };
    // The first page before the answer: a store that fails says so with a status, not a truncated stream.
    let page: Awaited<ReturnType<typeof ledger.store.read>>;
    try {
      page = await ledger.store.read({ ...query, limit: Math.min(limit, MAX_LEDGER_PAGE) });
    } catch (error) {
      return fail(c, {
        status: 503,
        message: `ledger store unavailable (${error instanceof Error ? error.name : 'error'}); try again shortly`,
        retryAfter: 1,
      });
    }
    let sent = 0;
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      // Page by page as the client reads: an export of thousands of entries never sits whole in memory.
      async pull(controller) {
        const entries = page.entries.slice(0, limit - sent);
        sent += entries.length;
        const last = entries.at(-1)?.id;
        let lines = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
        const more = entries.length < page.entries.length ? last : page.next;
        if (more === undefined || sent >= limit) {
          // The cursor to go on from, when there is more: the one line that is not an entry.
          if (more !== undefined) lines += `${JSON.stringify({ next: more })}\n`;
          if (lines) controller.enqueue(encoder.encode(lines));
          return controller.close();
        }
        if (lines) controller.enqueue(encoder.encode(lines));
        try {
          page = await ledger.store.read({ ...query, after: more, limit: Math.min(limit - sent, MAX_LEDGER_PAGE) });
        } catch (error) {
          controller.enqueue(
            encoder.encode(
              `${JSON.stringify({ next: more, error: `ledger store unavailable (${error instanceof Error ? error.name : 'error'})` })}\n`,
            ),
          );
          controller.close();
        }
      },
    });
    return c.body(stream, 200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
  });

  app.post('/admin/reversals', body, async (c) => {
    if (!runtime.ledger) return noLedger(c);
    const input = check(ReversalSchema, c.get('json'));
    if (!input.ok) return fail(c, input.refusal);
    const done = await reverseAward(runtime, runtime.ledger, { ...input.value, by: c.get('claims').sub, requestId: c.get('requestId') });
    if ('refusal' in done) return fail(c, done.refusal);
    return c.json({ success: true, ...done }, 200);
  });

  app.get('/admin/bans', async (c) => {
    const bans = bansOf(runtime);
    if (!bans) return noBans(c);
    return c.json({ success: true, bans: await bans.list() }, 200);
  });
  app.post('/admin/bans', body, async (c) => {
    const bans = bansOf(runtime);
    if (!bans) return noBans(c);
    const input = check(BanSchema, c.get('json'));
    if (!input.ok) return fail(c, input.refusal);
    const { player, reason } = input.value;
    await bans.ban(player, reason);
    recordBan(runtime, c, 'banned', player, reason);
    return c.json({ success: true, player, ...(reason !== undefined ? { reason } : {}) }, 200);
  });
  app.delete('/admin/bans/:player', async (c) => {
    const bans = bansOf(runtime);
    if (!bans) return noBans(c);
    const player = check(ServiceUserIdSchema, c.req.param('player'), 'path player ');
    if (!player.ok) return fail(c, player.refusal);
    await bans.unban(player.value);
    recordBan(runtime, c, 'unbanned', player.value);
    return c.json({ success: true, player: player.value }, 200);
  });
  app.route('/', webhookAdminRoutes(runtime.webhooks));
  return app;
}

/** A ban or an unban in the ledger: `player` is the player concerned, `by` the operator. */
function recordBan(runtime: RelayRuntime, c: RelayContext, outcome: 'banned' | 'unbanned', player: string, reason?: string) {
  runtime.ledger?.record({
    at: Date.now(),
    outcome,
    player,
    questId: '',
    serviceUserId: player,
    eventName: '',
    eventPoints: 0,
    by: c.get('claims').sub,
    ...(reason !== undefined ? { reason } : {}),
    requestId: c.get('requestId'),
  });
}
