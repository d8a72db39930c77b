import * as v from 'valibot';
import { EmailSchema, EventDescriptionSchema, EventNameSchema, EventPointsSchema, QuestIdSchema, ServiceUserIdSchema, WalletSchema } from './fields.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from './limits.js';

const BODY_MESSAGE = 'body must be a JSON object';

/** POST /group-quests/<questId>/points — request body. */
export const AwardBodySchema = v.object(
  {
    serviceUserId: ServiceUserIdSchema,
    eventPoints: EventPointsSchema,
    eventName: v.optional(EventNameSchema),
    eventDescription: v.optional(EventDescriptionSchema),
  },
  BODY_MESSAGE,
);
export type AwardBody = v.InferOutput<typeof AwardBodySchema>;

/** POST /users/identify — exactly one of email or wallet. */
export const IdentifyBodySchema = v.pipe(
  v.object({ email: v.optional(EmailSchema), wallet: v.optional(WalletSchema) }, BODY_MESSAGE),
  v.check(
    (body) => (body.email === undefined) !== (body.wallet === undefined),
    'exactly one of email or wallet is required (not both, not neither)',
  ),
);
export type IdentifyBody = v.InferOutput<typeof IdentifyBodySchema>;

/** Path parameters. */
export const QuestParamsSchema = v.object({ questId: QuestIdSchema });
export const QuestUserParamsSchema = v.object({ questId: QuestIdSchema, serviceUserId: ServiceUserIdSchema });
export type QuestParams = v.InferOutput<typeof QuestParamsSchema>;
export type QuestUserParams = v.InferOutput<typeof QuestUserParamsSchema>;

/** A query integer: absent -> the default; present -> decimal digits only (no sign, no fraction, no blanks). */
const queryInteger = (fallback: number) =>
  v.pipe(
    v.optional(v.string('must be a string'), String(fallback)),
    v.regex(/^\d{1,9}$/, 'must be a non-negative integer'),
    v.transform(Number),
  );

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
export type PageQuery = v.InferOutput<typeof PageQuerySchema>;
