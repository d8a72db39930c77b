// A client for the HUD's unit tests: the SDK's own emitter, a view and a snapshot the test sets by hand.
import { QuestPointsEmitter, type HistoryEntry, type PendingAward, type PointsView, type Snapshot } from '../../src/client/index.js';
import type { HudClient } from '../../src/hud/index.js';

export const QUEST = 'unit-quest';
export const PLAYER = 'unit-player';

export function emptyView(totalPoints = 0, history: HistoryEntry[] = []): PointsView {
  return { questId: QUEST, serviceUserId: PLAYER, totalPoints, confirmedPoints: totalPoints, sentPoints: 0, pendingPoints: 0, history, pending: [], confirmedAt: null, stale: false };
}

let seq = 0;
export function award(eventPoints: number, extra: Partial<PendingAward> = {}): PendingAward {
  seq += 1;
  return { questId: QUEST, serviceUserId: PLAYER, eventPoints, eventName: 'coin', idempotencyKey: `key-${seq}`, queuedAt: Date.now(), seq, ...extra };
}

export function fakeClient(view = emptyView()) {
  const emitter = new QuestPointsEmitter();
  let current = view;
  let snapshot: Snapshot = { online: true, queueSize: 0, deadLetterCount: 0, authRequired: false, storage: 'indexeddb', points: {} };
  const subscribers = new Set<(snapshot: Snapshot) => void>();
  const client: HudClient = {
    on(name, fn) {
      emitter.on(name, fn as never);
      return client as never;
    },
    off(name, fn) {
      emitter.off(name, fn as never);
      return client as never;
    },
    view: () => current,
    subscribe(cb) {
      subscribers.add(cb);
      cb(snapshot);
      return () => void subscribers.delete(cb);
    },
  };
  return {
    client,
    emitter,
    listeners: () => emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0) + subscribers.size,
    setView(view: PointsView) {
      current = view;
      emitter.emit('points:changed', { view });
    },
    setSnapshot(change: Partial<Snapshot>) {
      snapshot = { ...snapshot, ...change };
      for (const cb of subscribers) cb(snapshot);
    },
  };
}
