import * as v from 'valibot';
import { EmailSchema, entriesOf, WalletSchema } from './fields.js';
import { IDENTIFY_ONE_OF_MESSAGE } from './identify-rules.js';
import { AWARD_RULES, RELAY_AWARD_RULES } from './rules.js';

const BODY_MESSAGE = 'body must be a JSON object';

/** POST /group-quests/<questId>/points — request body. */
export const AwardBodySchema = v.object(entriesOf(AWARD_RULES), BODY_MESSAGE);
/** An award body as AwardBodySchema outputs it: `serviceUserId` and `eventPoints`, `eventName` and `eventDescription` optional. */
export type AwardBody = v.InferOutput<typeof AwardBodySchema>;

/**
 * POST /group-quests/<questId>/points as the relay reads it: the service's body and `onceKey`, the key of a once-only
 * achievement (the relay's economy consumes it; it is never forwarded to the service).
 */
export const RelayAwardBodySchema = v.object(entriesOf(RELAY_AWARD_RULES), BODY_MESSAGE);
/** The relay's award body: an AwardBody and an optional `onceKey`. */
export type RelayAwardBody = v.InferOutput<typeof RelayAwardBodySchema>;

/** POST /users/identify — exactly one of email or wallet. */
export const IdentifyBodySchema = v.pipe(
  v.object({ email: v.optional(EmailSchema), wallet: v.optional(WalletSchema) }, BODY_MESSAGE),
  v.check((body) => (body.email === undefined) !== (body.wallet === undefined), IDENTIFY_ONE_OF_MESSAGE),
);
/** An identify body as IdentifyBodySchema outputs it: `email` or `wallet`, exactly one of them set. */
export type IdentifyBody = v.InferOutput<typeof IdentifyBodySchema>;
