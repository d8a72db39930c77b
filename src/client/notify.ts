import type { QuestPointsEmitter } from './events.js';
import type { Live } from './live.js';
import { storageOf, type ClientState, type ClientStore } from './state.js';
import type { PointsView, Snapshot } from './types.js';

export interface NotifyDeps {
  events: QuestPointsEmitter;
  live: Live;
  /** The client's own pair, if it has one: in every snapshot from the start. */
  own?: string;
  queueSize(): number;
  /** The client's state: each change is told in the next tick (and `connection:changed` at once). */
  state: ClientStore;
  /** A pair's view was made for `points:changed` (tracked.ts releases it later unless it is tracked). */
  used(pair: string): void;
  /** The tracked pairs (tracked.ts): the own pair and the watched ones, which the snapshot shows. */
  pairs(): string[];
}

/** What a snapshot shows of the client's state (not its life cycle), with `storage` derived from the environment. */
const shown = ({ closed, loaded, ...status }: ClientState) => ({ ...status, storage: storageOf(status.environment) });

export type Notifier = ReturnType<typeof createNotifier>;

/**
 * The subscribable part of the client (TanStack Query's Subscribable and notifyManager): everything observable
 * changes at most once per tick — one round of `queue:changed`, `points:changed`, watchers and subscribers — and the
 * snapshot is the same object between changes (useSyncExternalStore compares by reference). Watchers and subscribers
 * are isolated from each other: one that throws is reported (`error`, `during` 'watchPoints' or 'subscribe'; the
 * console when nobody listens) and the others still run, in this tick and the next.
 */
export function createNotifier(deps: NotifyDeps) {
  const { events, live, own, state } = deps;
  const watchers = new Map<string, Set<(view: PointsView) => void>>();
  const subscribers = new Set<(snapshot: Snapshot) => void>();
  /** What this tick must tell: the pairs touched, whether the queue changed; and whether a tick is queued. */
  const touched = new Set<string>();
  let queueChanged = false;
  let tickQueued = false;
  /** The snapshot, the same object until something changes; undefined once it is outdated. */
  let snapshot: Snapshot | undefined;
  /** The own pair's cached state is loaded: until then its view would show a total without the confirmed part. */
  let restored = !own;

  /** One listener's failure, told once and kept from the others. */
  function call<T>(cb: (value: T) => void, value: T, during: 'watchPoints' | 'subscribe') {
    try {
      cb(value);
    } catch (error) {
      if (events.listenerCount('error')) events.emit('error', { error, during });
      else console.error('quest-points', during, error);
    }
  }

  function changed(pair?: string) {
    if (pair) {
      touched.add(pair);
      live.invalidate(pair);
    }
    snapshot = undefined;
    if (tickQueued) return;
    tickQueued = true;
    queueMicrotask(run);
  }

  function run() {
    tickQueued = false;
    const pairs = [...touched];
    touched.clear();
    if (!restored && own) touched.add(own);
    if (queueChanged) {
      queueChanged = false;
      events.emit('queue:changed', { queueSize: deps.queueSize() });
    }
    for (const pair of pairs) {
      if (pair === own && !restored) continue;
      const cbs = watchers.get(pair);
      if (!cbs && !events.listenerCount('points:changed')) continue;
      const view = live.view(pair);
      deps.used(pair);
      events.emit('points:changed', { view });
      for (const cb of [...(cbs ?? [])]) call(cb, view, 'watchPoints');
    }
    if (subscribers.size) {
      const current = getSnapshot();
      for (const cb of [...subscribers]) call(cb, current, 'subscribe');
    }
  }

  state.listen((next, previous) => {
    changed();
    if (next.online !== previous.online) events.emit('connection:changed', { online: next.online });
  });

  function getSnapshot(): Snapshot {
    snapshot ??= {
      ...shown(state.get()),
      queueSize: deps.queueSize(),
      points: Object.fromEntries(deps.pairs().map((pair) => [pair, live.view(pair)])),
    };
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
      call(cb, getSnapshot(), 'subscribe');
      return () => void subscribers.delete(cb);
    },
    /** Calls cb with the pair's view at once and on every change; returns unwatch. */
    watch(pair: string, cb: (view: PointsView) => void) {
      const cbs = watchers.get(pair) ?? new Set();
      watchers.set(pair, cbs.add(cb));
      snapshot = undefined;
      call(cb, live.view(pair), 'watchPoints');
      return () => {
        if (!cbs.delete(cb) || cbs.size) return;
        watchers.delete(pair);
        changed();
      };
    },
  };
}
