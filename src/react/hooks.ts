import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { pointsKey, QuestPointsError, type DeadLetter, type PointsView, type QuestPoints } from '../client/index.js';
import { useClient } from './context.js';
import { sameStatus, sameView, selector, statusOf, type QuestPointsStatus } from './stable.js';

/**
 * client.subscribe for React: the SDK calls a new subscriber at once with the current snapshot; React checks the
 * snapshot itself after subscribing, so that first call is dropped.
 */
function subscribeTo(client: QuestPoints) {
  return (onChange: () => void) => {
    let subscribed = false;
    const unsubscribe = client.subscribe(() => {
      if (subscribed) onChange();
    });
    subscribed = true;
    return unsubscribe;
  };
}

/** The client's own pair (the ids it was made with), or undefined when it was made without both. */
function ownKey(client: QuestPoints): string | undefined {
  try {
    const view = client.viewPoints();
    return pointsKey(view.questId, view.serviceUserId);
  } catch {
    return undefined;
  }
}

/** client.viewPoints(), with the hint a React developer needs when the ids are missing. */
function viewOf(client: QuestPoints, questId: string | undefined, serviceUserId: string | undefined): PointsView {
  try {
    return client.viewPoints(questId, serviceUserId);
  } catch (error) {
    const missing = error instanceof QuestPointsError && (questId === undefined || serviceUserId === undefined);
    if (!missing) throw error;
    throw new QuestPointsError(
      `usePoints(): ${error.message}. Pass questId and serviceUserId to usePoints, or make the client with both (the provider's options)`,
      error.code,
      undefined,
      error.field,
    );
  }
}

/**
 * The live view of a quest and player: totalPoints (confirmed + sent + pending), the parts, and the history newest
 * first, each entry `pending`, `sent` or `confirmed`. A missing id defaults to the client's own (usePoints() is the
 * client's own pair, tracked by the SDK from start-up). Another pair is watched while the component is mounted. The
 * component renders only when the view's content changes.
 */
export function usePoints(questId?: string, serviceUserId?: string): PointsView {
  const client = useClient('usePoints()');
  const [subscribe, getSnapshot] = useMemo(() => {
    // Validates the ids (a QuestPointsError naming the field) and gives their canonical form.
    const ids = viewOf(client, questId, serviceUserId);
    const key = pointsKey(ids.questId, ids.serviceUserId);
    // Before its watch starts, a pair is not in the snapshot: client.viewPoints() has its queued awards meanwhile.
    const read = selector(() => client.getSnapshot().points[key] ?? client.viewPoints(ids.questId, ids.serviceUserId), sameView);
    if (key === ownKey(client)) return [subscribeTo(client), read] as const;
    // watchPoints calls back on every change of the pair, and at once (React then finds the pair in the snapshot).
    const watch = (onChange: () => void) => client.watchPoints(ids.questId, ids.serviceUserId, () => onChange());
    return [watch, read] as const;
  }, [client, questId, serviceUserId]);
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/** online, queueSize, deadLetterCount, authRequired, deploymentRefused and storage; the component renders only when one changes. */
export function useQuestPointsStatus(): QuestPointsStatus {
  const client = useClient('useQuestPointsStatus()');
  const [subscribe, getSnapshot] = useMemo(
    () => [subscribeTo(client), selector(() => statusOf(client.getSnapshot()), sameStatus)] as const,
    [client],
  );
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/**
 * The latest award refused for good while the component is mounted (`award:rejected`), or undefined: its dead letter,
 * with the relay's machine-readable `code` (budget, once, cooldown, campaign, banned, policy...; absent when the
 * service refused) to word it for the player, and its `message` for the logs (it may name the rule and its numbers).
 * Renders again on each refusal; a refused award counts nowhere (usePoints() has dropped it already).
 */
export function useLastRejection(): DeadLetter | undefined {
  const client = useClient('useLastRejection()');
  const [letter, setLetter] = useState<DeadLetter>();
  useEffect(() => {
    const rejected = ({ deadLetter }: { deadLetter: DeadLetter }) => setLetter(deadLetter);
    client.on('award:rejected', rejected);
    return () => {
      client.off('award:rejected', rejected);
    };
  }, [client]);
  return letter;
}
