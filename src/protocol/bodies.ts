import * as v from 'valibot';
import { EmailSchema, EventDescriptionSchema, EventNameSchema, EventPointsSchema, ServiceUserIdSchema, WalletSchema } from './fields.js';

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
