import * as v from 'valibot';
import { EmailSchema, QuestIdSchema, ServiceUserIdSchema, WalletSchema, parseWith } from '../protocol/index.js';

/** Dev tokens live 15 minutes: long enough for a play session, short enough that a leaked one dies soon. */
export const DEV_TOKEN_TTL_SECONDS = 15 * 60;

/**
 * GET /__dev/token query: sub (default `dev-player`), role (`player` | `admin`), and the optional claims a
 * player token may carry: email, wallet as chain + address, quests as a comma-separated list.
 */
export const DevTokenClaimsSchema = v.object({
  sub: v.optional(ServiceUserIdSchema, 'dev-player'),
  role: v.optional(v.picklist(['player', 'admin'], 'must be player or admin'), 'player'),
  email: v.optional(EmailSchema),
  wallet: v.optional(WalletSchema),
  quests: v.optional(v.pipe(v.array(QuestIdSchema), v.minLength(1, 'must name at least one quest'))),
});
export type DevTokenClaims = v.InferOutput<typeof DevTokenClaimsSchema>;

/** Query string -> claims (wallet from chain + address, quests split on commas), validated. */
export function parseDevTokenQuery(query: URLSearchParams) {
  const raw: Record<string, unknown> = {};
  for (const key of ['sub', 'role', 'email'] as const) {
    const value = query.get(key);
    if (value !== null) raw[key] = value;
  }
  const chain = query.get('chain');
  const address = query.get('address');
  if (chain !== null || address !== null) raw.wallet = { chain: chain ?? undefined, address: address ?? undefined };
  const quests = query.get('quests');
  if (quests !== null) raw.quests = quests.split(',').filter(Boolean);
  return parseWith(DevTokenClaimsSchema, raw);
}
