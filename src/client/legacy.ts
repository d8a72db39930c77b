import { isLegacyDeploymentLetter, isLegacyPlayerMessage } from '../protocol/refusal.js';
import type { KV } from './store.js';
import type { DeadLetter, PendingAward } from './types.js';

/**
 * Start-up: the dead letters an earlier version kept for a refusal about the deployment (protocol/refusal.ts
 * isLegacyDeploymentLetter: an origin the relay did not allow behind a TLS proxy, a proxy's HTML 404) go back to the
 * queue under their own keys and are delivered. They were never forwarded, so the key was never applied (and the
 * service dedupes by it anyway, so two tabs starting at once send each one once). Queued before they leave the dead
 * store, so a crash in between leaves them in both, never in neither; this version never dead-letters such a refusal,
 * so each goes back once. The same for a letter an earlier version kept for another player's award (the relay's "not
 * the token's sub": one player's session sent another's): back in the queue, it waits for its player (players.ts).
 * Returns how many went back.
 */
export async function requeueDeploymentLetters(queue: KV<PendingAward>, dead: KV<DeadLetter>): Promise<number> {
  const letters = (await dead.all()).filter((d) => isLegacyDeploymentLetter(d) || isLegacyPlayerMessage(d.message));
  if (!letters.length) return 0;
  await queue.setMany(letters.map(({ status, message, rejectedAt, ...award }): [string, PendingAward] => [award.idempotencyKey, award]));
  await dead.delMany(letters.map((letter) => letter.idempotencyKey));
  return letters.length;
}
