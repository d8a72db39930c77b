import { useMemo, useSyncExternalStore } from 'react';
import { pointsKey, type PointsView, type QuestPoints } from '../client/index.js';
import { useQuestPointsContext } from './context.js';
import { emptyView, sameStatus, sameView, selector, statusOf, type QuestPointsStatus } from './stable.js';

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

/**
 * The live view of a quest and user: totalPoints (confirmed + sent + pending), the parts, and the history newest first,
 * each entry `pending`, `sent` or `confirmed`. Without arguments, the provider's pair. Another pair is watched while
 * the component is mounted; until that watch starts (its first render) the view is empty (confirmedAt null), as the
 * SDK's own view is before its first read. The component renders only when the view's content changes.
 */
export function usePoints(questId?: string, serviceUserId?: string): PointsView {
  const context = useQuestPointsContext('usePoints()');
  const { client } = context;
  const quest = questId ?? context.questId;
  const user = serviceUserId ?? context.serviceUserId;
  if (quest === undefined || user === undefined) {
    throw new Error(
      'usePoints(): no questId and serviceUserId: pass them, or give <QuestPointsProvider> options with both (or, with a client, questId and serviceUserId props)',
    );
  }
  const key = pointsKey(quest, user);
  const tracked = context.own && key === pointsKey(context.questId!, context.serviceUserId!);

  const [subscribe, getSnapshot] = useMemo(() => {
    const snapshotSubscribe = subscribeTo(client);
    const empty = emptyView(quest, user);
    const read = selector(() => client.getSnapshot().points[key] ?? empty, sameView);
    if (tracked) return [snapshotSubscribe, read] as const;
    // Not the client's own pair: watched while subscribed. watchPoints calls back on every change of the pair.
    const watch = (onChange: () => void) => client.watchPoints(quest, user, () => onChange());
    return [watch, read] as const;
  }, [client, key, tracked]);

  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/** online, queueSize, deadLetterCount, authRequired and storage; the component renders only when one changes. */
export function useQuestPointsStatus(): QuestPointsStatus {
  const { client } = useQuestPointsContext('useQuestPointsStatus()');
  const [subscribe, getSnapshot] = useMemo(() => [subscribeTo(client), selector(() => statusOf(client.getSnapshot()), sameStatus)] as const, [client]);
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}
