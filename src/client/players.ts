import type { SendResult } from './send.js';
import type { PendingAward } from './types.js';

/**
 * Which awards a session sends: awards belong to their player (docs/guide/offline.md, "Shared computers").
 *
 * One outbox per storage name holds every player's awards, and a session sends only its own player's: the others wait
 * in the store for a session of theirs. One store rather than one per player, because the player is not always known
 * where the outbox is opened (a client made without `serviceUserId` names the player in each award; the service
 * worker has only the signed-in player's token), and because awards queued before this rule (and by a page or worker
 * of an earlier release, which share the outbox) are in that one store: filtering by each award's own
 * `serviceUserId` delivers them with no migration, to their player.
 *
 * Who the session's player is:
 * - the client's `serviceUserId` option, when given: only that player's awards are sent (the others are never sent,
 *   so another player's token never carries them);
 * - otherwise (a client naming the player per award, the service worker), what the relay says: an award it refuses
 *   as another player's than the token's (code 'player', protocol/refusal.ts) stays queued, and that player's awards
 *   are set aside for the rest of this drain. Never a dead letter: the award is not at fault, its player is away.
 *
 * `player`: the client's serviceUserId option. One per drain (the next drain may carry another player's token).
 */
export function createPlayers(player: string | undefined) {
  /** Players the relay said this drain's token is not: their awards wait for their own session. */
  const elsewhere = new Set<string>();
  return {
    /** Whether this session sends the award now. */
    mine: (award: PendingAward) => award.serviceUserId === (player ?? award.serviceUserId) && !elsewhere.has(award.serviceUserId),
    /** One batch's refusals as another player's award: those players are set aside. True when there was one. */
    refused: (head: PendingAward[], results: SendResult[]) =>
      head.filter((award, i) => isPlayerRefusal(results[i]) && elsewhere.add(award.serviceUserId)).length > 0,
    /** A fresh token came: the players set aside may be its player. */
    forgive: () => elsewhere.clear(),
  };
}

/** The relay refused the award as another player's than the token's: it waits for that player. */
export const isPlayerRefusal = (result: SendResult | undefined): boolean => result?.outcome === 'retry' && result.reason === 'player';
