// The operator's webhook routes, in the admin route group (admin token checked there): the dead letters, and their
// replay. `quest-points webhooks dead|replay` calls them.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { RelayEnv } from '../context.js';
import { jsonBody } from '../hygiene.js';
import { fail } from '../respond.js';
import { check } from '../validate.js';
import type { Webhooks } from './webhooks.js';
import { webhookPayload } from './webhooks-send.js';

/** The most dead letters one GET /admin/webhooks/dead lists (its `limit`), and ids one replay names. */
export const MAX_DEAD_LIST = 1000;
const REPLAY_BODY_BYTES = 64 * 1024;

const IdSchema = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters'));
const ReplaySchema = v.union(
  [
    v.strictObject({ ids: v.pipe(v.array(IdSchema, 'must be an array of webhook ids'), v.minLength(1), v.maxLength(MAX_DEAD_LIST)) }),
    v.strictObject({ all: v.literal(true, 'must be true') }),
  ],
  'a replay is { "ids": ["<webhook id>", ...] } or { "all": true }',
);
const DeadParamsSchema = v.strictObject(
  {
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,4}$/, 'must be a whole number'),
        v.transform(Number),
        v.minValue(1, 'must be at least 1'),
        v.maxValue(MAX_DEAD_LIST, `must be at most ${MAX_DEAD_LIST}`),
      ),
    ),
  },
  'unknown parameter: use limit',
);

/** An endpoint's URL as an answer shows it: no query, no credentials (they may carry a token of the receiver's). */
const shown = (url: string) => {
  const { origin, pathname } = new URL(url);
  return origin + pathname;
};

/**
 * GET /admin/webhooks/dead → `{ success, dead: [{ id, endpoint, attempts, lastError, deadAt, payload }] }`, oldest first;
 * POST /admin/webhooks/replay `{ ids }` or `{ all: true }` → `{ success, replayed }`. Mount after the admin check.
 */
export function webhookAdminRoutes(webhooks: Webhooks | undefined): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  const off = { status: 404, message: 'webhooks are off on this relay (RelayOptions webhooks)', code: 'route' } as const;
  const unavailable = (error: unknown) => ({
    status: 503,
    message: `webhook state store unavailable (${error instanceof Error ? error.name : 'error'}); try again shortly`,
    retryAfter: 1,
  });
  app.get('/admin/webhooks/dead', async (c) => {
    if (!webhooks) return fail(c, off);
    const params = check(DeadParamsSchema, c.req.query(), 'query ');
    if (!params.ok) return fail(c, params.refusal);
    try {
      const dead = await webhooks.dead(params.value.limit ?? MAX_DEAD_LIST);
      return c.json(
        {
          success: true,
          dead: dead.map((d) => ({
            id: d.id,
            endpoint: shown(d.endpoint),
            attempts: d.attempts,
            lastError: d.lastError,
            deadAt: new Date(d.deadAt).toISOString(),
            payload: webhookPayload(d.entry),
          })),
        },
        200,
      );
    } catch (error) {
      return fail(c, unavailable(error));
    }
  });
  app.post('/admin/webhooks/replay', jsonBody(REPLAY_BODY_BYTES), async (c) => {
    if (!webhooks) return fail(c, off);
    const input = check(ReplaySchema, c.get('json'));
    if (!input.ok) return fail(c, input.refusal);
    try {
      return c.json({ success: true, replayed: await webhooks.replay(input.value) }, 200);
    } catch (error) {
      return fail(c, unavailable(error));
    }
  });
  return app;
}
