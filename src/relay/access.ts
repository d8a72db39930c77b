import { normaliseEmail, sameWallet, type Wallet } from '../protocol/index.js';
import type { VerifiedClaims } from './claims.js';
import type { Refusal } from './policy.js';

// Who may do what. A player acts only as itself (its token's `sub`), only in its token's quests (when the
// token lists any), and identifies only the e-mail or wallet its token carries. An admin may do everything.

// 'player': the award or identity is another player's than the token's; 'policy': a rule of who may do what.
const forbidden = (message: string, code: Refusal['code'] = 'policy'): Refusal => ({ status: 403, message, code });

/** Awarding to, or reading, (questId, serviceUserId). */
export function checkUserAccess(claims: VerifiedClaims, questId: string, serviceUserId: string): Refusal | null {
  if (claims.role === 'admin') return null;
  if (serviceUserId !== claims.sub) {
    return forbidden(`serviceUserId ${JSON.stringify(serviceUserId)} is not the token's sub: a player acts only on itself`, 'player');
  }
  return checkQuestAccess(claims, questId);
}

export function checkQuestAccess(claims: VerifiedClaims, questId: string): Refusal | null {
  if (claims.role === 'admin' || !claims.quests || claims.quests.includes(questId)) return null;
  return forbidden(`questId ${JSON.stringify(questId)} is not in the token's quests`);
}

/** The enrolled-users list carries every enrolled user's e-mail: admins only. */
export function checkListAccess(claims: VerifiedClaims): Refusal | null {
  if (claims.role === 'admin') return null;
  return forbidden('listing enrolled users needs an admin token (the list carries e-mails)');
}

export function checkIdentifyAccess(claims: VerifiedClaims, body: { email?: string; wallet?: Wallet }): Refusal | null {
  if (claims.role === 'admin') return null;
  if (body.email !== undefined) {
    if (claims.email === undefined) return forbidden('email: the token carries no email, so it may identify none', 'player');
    if (normaliseEmail(body.email) !== normaliseEmail(claims.email)) {
      return forbidden("email is not the token's email: a player identifies only itself", 'player');
    }
    return null;
  }
  if (body.wallet !== undefined) {
    if (claims.wallet === undefined) return forbidden('wallet: the token carries no wallet, so it may identify none', 'player');
    if (!sameWallet(body.wallet, claims.wallet)) {
      return forbidden("wallet is not the token's wallet: a player identifies only itself", 'player');
    }
  }
  return null;
}
