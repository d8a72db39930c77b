import type { QuestPointsEmitter } from './events.js';
import type { Live } from './live.js';
import type { PointsView, Snapshot } from './types.js';

export interface NotifyDeps {
  events: QuestPointsEmitter;
  live: Live;
  /** The client's own pair, if it has one: in every snapshot from the start. */
  own?: string;
  queueSize(): number;
  status(): Omit<Snapshot, 'queueSize' | 'points'>;
}

export type Notifier = ReturnType<typeof createNotifier>;

/**
 * The subscribable part of the client (TanStack Query's Subscribable): everything observable changes at most once
 * per tick — one round of `queue:changed`, `points:changed`, watchers and subscribers — and the snapshot is the same
 * object between changes (useSyncExternalStore compares by reference).
 */
export function createNotifier(deps: NotifyDeps) {
  const { events, live, own } = deps;
  const watchers = new Map<string, Set<(view: PointsView) => void>>();
  const subscribers = new Set<(snapshot: Snapshot) => void>();
  const touched = new Set<string>();
  let queueChanged = false;
  let tickPending = false;
  let snapshot: Snapshot | undefined;
  /** The own pair's cached state is loaded: until then its view would show a total without the confirmed part. */
  let restored = !own;

  function changed(pair?: string) {
    if (pair) {
      touched.add(pair);
      live.invalidate(pair);
    }
    snapshot = undefined;
    if (tickPending) return;
    tickPending = true;
    queueMicrotask(tick);
  }

  function tick() {
    tickPending = false;
    if (queueChanged) {
      queueChanged = false;
      events.emit('queue:changed', { queueSize: deps.queueSize() });
    }
    for (const pair of touched) {
      if (pair === own && !restored) continue;
      const cbs = watchers.get(pair);
      if (!cbs && !events.listenerCount('points:changed')) continue;
      const view = live.view(pair);
      events.emit('points:changed', { view });
      for (const cb of cbs ?? []) cb(view);
    }
    touched.clear();
    if (!restored && own) touched.add(own);
    if (subscribers.size) {
      const current = getSnapshot();
      for (const cb of subscribers) cb(current);
    }
  }

  function getSnapshot(): Snapshot {
    const pairs = new Set([...(own ? [own] : []), ...watchers.keys()]);
    snapshot ??= { ...deps.status(), queueSize: deps.queueSize(), points: Object.fromEntries([...pairs].map((pair) => [pair, live.view(pair)])) };
    return snapshot;
  }

  return {
    changed,
    /** The outbox's size changed: `queue:changed` in this tick. */
    queueChanged() {
      queueChanged = true;
      changed();
    },
    /** The own pair's cache is loaded: its events may go. */
    restored() {
      restored = true;
      if (own) changed(own);
    },
    getSnapshot,
    subscribe(cb: (snapshot: Snapshot) => void) {
      subscribers.add(cb);
      cb(getSnapshot());
      return () => void subscribers.delete(cb);
    },
    /** Calls cb with the pair's view at once and on every change; returns unwatch. */
    watch(pair: string, cb: (view: PointsView) => void) {
      const cbs = watchers.get(pair) ?? new Set();
      watchers.set(pair, cbs.add(cb));
      snapshot = undefined;
      cb(live.view(pair));
      return () => {
        cbs.delete(cb);
        if (cbs.size) return;
        watchers.delete(pair);
        changed();
      };
    },
  };
}
