import type { HistoryEntry, PendingAward, PointsView, Snapshot } from '../client/index.js';

/** What useQuestPointsStatus() returns: the snapshot without the views. */
export type QuestPointsStatus = Pick<Snapshot, 'online' | 'queueSize' | 'deadLetterCount' | 'authRequired' | 'deploymentRefused' | 'storage'>;

const sameEntry = (a: HistoryEntry, b: HistoryEntry) =>
  a === b ||
  (a.state === b.state &&
    a.idempotencyKey === b.idempotencyKey &&
    a.eventPoints === b.eventPoints &&
    a.eventName === b.eventName &&
    a.eventDescription === b.eventDescription &&
    a.createdAt === b.createdAt);

/** Queued awards are never modified, only replaced: their key and place say it all. */
const samePending = (a: PendingAward, b: PendingAward) => a === b || (a.idempotencyKey === b.idempotencyKey && a.seq === b.seq);

function sameList<T extends object>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i];
    return y !== undefined && same(x, y);
  });
}

/**
 * The SDK builds a new view whenever something of its pair happened, including a read that changed nothing or failed
 * again while offline. A view with the same content is the same answer for a component: it is kept, so the component
 * does not render.
 */
export function sameView(a: PointsView, b: PointsView): boolean {
  return (
    a === b ||
    (a.questId === b.questId &&
      a.serviceUserId === b.serviceUserId &&
      a.totalPoints === b.totalPoints &&
      a.confirmedPoints === b.confirmedPoints &&
      a.sentPoints === b.sentPoints &&
      a.pendingPoints === b.pendingPoints &&
      a.confirmedAt === b.confirmedAt &&
      a.stale === b.stale &&
      sameList(a.history, b.history, sameEntry) &&
      sameList(a.pending, b.pending, samePending))
  );
}

export const sameStatus = (a: QuestPointsStatus, b: QuestPointsStatus) =>
  a.online === b.online &&
  a.queueSize === b.queueSize &&
  a.deadLetterCount === b.deadLetterCount &&
  a.authRequired === b.authRequired &&
  a.deploymentRefused === b.deploymentRefused &&
  a.storage === b.storage;

export const statusOf = ({ online, queueSize, deadLetterCount, authRequired, deploymentRefused, storage }: Snapshot): QuestPointsStatus => ({
  online,
  queueSize,
  deadLetterCount,
  authRequired,
  deploymentRefused,
  storage,
});

/**
 * A getSnapshot for useSyncExternalStore that selects from the client's snapshot and returns the previous answer
 * while the new one is equal, so a change elsewhere in the snapshot does not render the component.
 */
export function selector<T>(read: () => T, same: (a: T, b: T) => boolean): () => T {
  let last: T | undefined;
  let has = false;
  return () => {
    const next = read();
    if (!has || !same(last as T, next)) {
      last = next;
      has = true;
    }
    return last as T;
  };
}
