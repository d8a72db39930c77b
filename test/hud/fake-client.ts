// The HUD's unit tests drive the demo designer's scripted client: the SDK's own emitter, a view and a snapshot set
// by hand.
import { scriptedClient } from '../../demo/src/hud-preview.js';
import type { HistoryEntry, PendingAward, PointsView } from '../../src/client/index.js';

export const QUEST = 'unit-quest';
/** An award's `persisted` when it is in IndexedDB. */
export const STORED = Promise.resolve(true);
export const PLAYER = 'unit-player';

export function emptyView(totalPoints = 0, history: HistoryEntry[] = []): PointsView {
  return {
    questId: QUEST,
    serviceUserId: PLAYER,
    totalPoints,
    confirmedPoints: totalPoints,
    sentPoints: 0,
    pendingPoints: 0,
    history,
    pending: [],
    confirmedAt: null,
    stale: false,
  };
}

let seq = 0;
export function award(eventPoints: number, extra: Partial<PendingAward> = {}): PendingAward {
  seq += 1;
  return { questId: QUEST, serviceUserId: PLAYER, eventPoints, eventName: 'coin', idempotencyKey: `key-${seq}`, queuedAt: Date.now(), seq, ...extra };
}

export const fakeClient = (view = emptyView()) => scriptedClient(view);
