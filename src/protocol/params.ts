import * as v from 'valibot';
import { QuestIdSchema, ServiceUserIdSchema } from './fields.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from './limits.js';

// What the servers read from a request's path, query and headers. Its own module because the SDK builds these and
// never parses them: esbuild keeps every top-level schema of a module it bundles (it cannot see that a `v.` call is
// pure), so schemas the browser bundle does not need stay out of the modules it imports (fields.ts, bodies.ts).

/** Path parameters of the routes under /group-quests/{questId}. */
export const QuestParamsSchema = v.object({ questId: QuestIdSchema });
/** Path parameters of the routes under /group-quests/{questId}/.../{serviceUserId}. */
export const QuestUserParamsSchema = v.object({ questId: QuestIdSchema, serviceUserId: ServiceUserIdSchema });
/** `{ questId }`, as QuestParamsSchema outputs it. */
export type QuestParams = v.InferOutput<typeof QuestParamsSchema>;
/** `{ questId, serviceUserId }`, as QuestUserParamsSchema outputs it. */
export type QuestUserParams = v.InferOutput<typeof QuestUserParamsSchema>;

/** A query integer: absent -> the default; present -> decimal digits only (no sign, no fraction, no blanks). */
const queryInteger = (fallback: number) =>
  v.pipe(v.optional(v.string('must be a string'), String(fallback)), v.regex(/^\d{1,9}$/, 'must be a non-negative integer'), v.transform(Number));

/** GET /group-quests/{questId}/enrolled-users — query. limit is clamped to PAGE_LIMIT_MAX, the applied value reported. */
export const PageQuerySchema = v.object({
  offset: queryInteger(0),
  // limit=0 would make a page iterator spin forever: it is refused, not answered empty.
  limit: v.pipe(
    queryInteger(PAGE_LIMIT_DEFAULT),
    v.minValue(1, 'must be at least 1'),
    v.transform((n) => Math.min(n, PAGE_LIMIT_MAX)),
  ),
});
/** `{ offset, limit }` as numbers, defaults applied and `limit` clamped, as PageQuerySchema outputs them. */
export type PageQuery = v.InferOutput<typeof PageQuerySchema>;

/** IDEMPOTENCY_KEY: a UUID (any version), compared case-insensitively. */
export const IdempotencyKeySchema = v.pipe(v.string('must be a string'), v.uuid('must be a UUID such as 3f2b8c1e-6d4a-4c8e-9b1a-2f6e5d4c3b2a'));
