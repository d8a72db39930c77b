// Whose refusal is it? A final answer (statusVerdict 'rejected') dead-letters an award only when it is about the award
// itself: the service's refusal, or a rule of the operator's policy. A refusal about the deployment (an origin the
// relay does not allow, a route that does not exist, a proxy's HTML 404/502, a WAF's or CDN's 403) says nothing about
// the award: sending it again once the deployment is fixed is right, so the queue holds and the SDK reports it, as it
// does for a missing token. A refusal about the player (the award is another player's than the token's) waits for its
// player. The relay marks each of its own refusals with a machine-readable `code` (its error body and a batch's
// rejected result), so the SDK can tell "this award is refused" from "this relay is misconfigured".

/** Who a final refusal is about, and so what happens to the award. */
export type RefusalScope =
  /** the award itself: final, into the dead letters */
  | 'award'
  /** the deployment (origin, route, proxy, WAF): the queue holds and the SDK reports it; sent again once it heals */
  | 'deployment'
  /** the award belongs to another player than the token's: it waits for that player's session */
  | 'player';

/**
 * The relay's refusal codes and who each is about. One table: the relay answers with these codes, the SDK and the
 * service worker read them. A code not listed here (a newer relay's) is about the award, the safe side of a refusal
 * the relay chose to make final.
 */
export const REFUSAL_CODES = {
  // a field of the award breaks a rule (400) or the body is unreadable
  invalid: 'award',
  // the operator's policy refuses the quest, event or amount (403/422)
  policy: 'award',
  // the idempotency key was used with a different award (422)
  key_conflict: 'award',
  // the body is too large (413)
  too_large: 'award',
  // the Origin is not in the relay's CORS allowlist (403): the deployment's fault, not the award's
  origin: 'deployment',
  // no such route or method on the relay (404/405): a relay URL or mount path that is wrong
  route: 'deployment',
  // the award names another player than the token's subject (403)
  player: 'player',
  // economy rules (src/relay/economy): final, never retried, counted nowhere
  // the player's points budget for this event or quest is spent for the window (422)
  budget: 'award',
  // a once-only achievement this player already earned in this quest (422)
  once: 'award',
  // the same event again before its cooldown ended (422)
  cooldown: 'award',
  // the quest's campaign has not started or has ended (422)
  campaign: 'award',
  // the player is banned (403)
  banned: 'award',
} as const satisfies Record<string, RefusalScope>;

/** A code the relay puts on its own refusals (`{ success: false, message, code }`). */
export type RefusalCode = keyof typeof REFUSAL_CODES;

/** Who a relay's refusal `code` is about; a code this version does not know is about the award. */
export const scopeOfCode = (code: string): RefusalScope => (Object.hasOwn(REFUSAL_CODES, code) ? REFUSAL_CODES[code as RefusalCode] : 'award');

/**
 * Who a final refusal is about, from its body as read (parsed JSON, or text when it was not JSON).
 * - the standard error body with a `code`: that code's scope;
 * - the standard error body without one: the service's refusal (or an older relay's) is about the award, except an
 *   older relay's own origin refusal and its refusal of another player's award, recognised by their messages;
 * - anything else (an HTML page, an empty body, another JSON shape): a proxy, WAF or CDN answered, not the relay or
 *   the service: about the deployment.
 */
export function refusalScope(body: unknown): RefusalScope {
  if (typeof body !== 'object' || body === null) return 'deployment';
  const { success, message, code } = body as { success?: unknown; message?: unknown; code?: unknown };
  if (success !== false || typeof message !== 'string') return 'deployment';
  if (typeof code === 'string') return scopeOfCode(code);
  if (isLegacyPlayerMessage(message)) return 'player';
  return isLegacyDeploymentMessage(message) ? 'deployment' : 'award';
}

/**
 * An earlier relay's refusal about the deployment, by its message (it carried no code): its origin refusal and its
 * unknown route. Used for answers of such a relay and to give back dead letters an earlier SDK kept for them.
 */
export const isLegacyDeploymentMessage = (message: string): boolean =>
  /is not in the relay's CORS allowlist|^no route (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /.test(message);

/**
 * An earlier relay's refusal of an award named for another player than the token's subject (access.ts), by its
 * message: such an award waits for its player, even when the relay is older than the SDK (no `code`).
 */
export const isLegacyPlayerMessage = (message: string): boolean => /is not the token's sub\b/.test(message);

/**
 * A dead letter an earlier SDK kept for a refusal about the deployment, by what it recorded (status and message):
 * the earlier relay's origin or route refusal (isLegacyDeploymentMessage), or the bare `HTTP <status>` that SDK wrote
 * when the body was not the standard error body `{ success: false, message }` (a proxy's HTML 404, a WAF's empty 403,
 * another JSON shape). Such an award was never forwarded to the service; this version never makes such a letter (it
 * holds the queue instead), so a letter it finds is an earlier version's.
 */
export const isLegacyDeploymentLetter = ({ status, message }: { status: number; message: string }): boolean =>
  isLegacyDeploymentMessage(message) || message === `HTTP ${status}`;
