/**
 * The key of a (questId, serviceUserId) pair, in one place: the live state, the outbox's per-pair index, the
 * snapshot's `points` and the messages between tabs all use it. Ids never contain control characters, so '\n'
 * cannot be ambiguous.
 */
export const pointsKey = (questId: string, serviceUserId: string) => `${questId}\n${serviceUserId}`;

/** The pair an award (or any record with both ids) belongs to. */
export const pairOf = (ids: { questId: string; serviceUserId: string }) => pointsKey(ids.questId, ids.serviceUserId);

/** The ids of a pointsKey. */
export function idsOf(pair: string): { questId: string; serviceUserId: string } {
  const [questId = '', serviceUserId = ''] = pair.split('\n');
  return { questId, serviceUserId };
}
