import * as v from 'valibot';
import { EmailSchema, QuestIdSchema, ServiceUserIdSchema, WalletSchema } from '../protocol/index.js';

/** What the relay knows about the caller, from a verified token or the operator's own authenticate(). */
export const PlayerClaimsSchema = v.object({
  /** The caller's serviceUserId. */
  sub: ServiceUserIdSchema,
  role: v.optional(v.picklist(['player', 'admin'], 'must be "player" or "admin"'), 'player'),
  /** Quests this token may touch; absent -> every quest the policy allows. */
  quests: v.optional(v.array(QuestIdSchema, 'must be an array of quest ids')),
  /** The one e-mail this player may identify. */
  email: v.optional(EmailSchema),
  /** The one wallet this player may identify. */
  wallet: v.optional(WalletSchema),
});

export type PlayerClaims = v.InferInput<typeof PlayerClaimsSchema>;
/** Claims after validation: role is always set. */
export type VerifiedClaims = v.InferOutput<typeof PlayerClaimsSchema>;
export type PlayerRole = VerifiedClaims['role'];
