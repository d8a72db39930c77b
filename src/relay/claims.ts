import * as v from 'valibot';
import type { ObjectInput, ObjectOutput } from '../protocol/infer.js';
import { EmailSchema, QuestIdSchema, ServiceUserIdSchema, WalletSchema } from '../protocol/index.js';

/** What the relay knows about the caller, from a verified token or the operator's own authenticate(). */
export const PlayerClaimsSchema = v.object({
  /** The caller's serviceUserId. */
  sub: ServiceUserIdSchema,
  /** `player` (the default) acts only as `sub`; `admin` may act for any player on any quest, unlimited per player. */
  role: v.optional(v.picklist(['player', 'admin'], 'must be "player" or "admin"'), 'player'),
  /** Quests this token may touch; absent -> every quest the policy allows. */
  quests: v.optional(v.array(QuestIdSchema, 'must be an array of quest ids')),
  /** The one e-mail this player may identify. */
  email: v.optional(EmailSchema),
  /** The one wallet this player may identify. */
  wallet: v.optional(WalletSchema),
});

/** The claims a player token carries, as signPlayerToken takes them and PlayerClaimsSchema reads them (role optional). */
export interface PlayerClaims extends ObjectInput<typeof PlayerClaimsSchema> {}
/** Claims after validation: role is always set. */
export interface VerifiedClaims extends ObjectOutput<typeof PlayerClaimsSchema> {}
/** What a caller may do: `player` acts only as itself, `admin` for any player. */
export type PlayerRole = VerifiedClaims['role'];
