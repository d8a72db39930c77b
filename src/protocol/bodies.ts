import * as v from 'valibot';
import { EmailSchema, entriesOf, WalletSchema } from './fields.js';
import { IDENTIFY_ONE_OF_MESSAGE } from './identify-rules.js';
import { AWARD_RULES } from './rules.js';

const BODY_MESSAGE = 'body must be a JSON object';

/** POST /group-quests/<questId>/points — request body. */
export const AwardBodySchema = v.object(entriesOf(AWARD_RULES), BODY_MESSAGE);
/** An award body as AwardBodySchema outputs it: `serviceUserId` and `eventPoints`, `eventName` and `eventDescription` optional. */
export type AwardBody = v.InferOutput<typeof AwardBodySchema>;

/** POST /users/identify — exactly one of email or wallet. */
export const IdentifyBodySchema = v.pipe(
  v.object({ email: v.optional(EmailSchema), wallet: v.optional(WalletSchema) }, BODY_MESSAGE),
  v.check((body) => (body.email === undefined) !== (body.wallet === undefined), IDENTIFY_ONE_OF_MESSAGE),
);
/** An identify body as IdentifyBodySchema outputs it: `email` or `wallet`, exactly one of them set. */
export type IdentifyBody = v.InferOutput<typeof IdentifyBodySchema>;
