import { QuestPointsEmitter, type HistoryEntry, type PendingAward, type PointsView, type Snapshot } from '../../src/client/index.js';
import type { HudClient } from '../../src/hud/index.js';

// The HUD designer's stand-in for a client: it speaks the SDK's events (the only thing the HUD listens to) on a
// script, so each toast state can be held on screen while a designer styles it. No network, no storage.

/**
 * A client the page drives by hand: the SDK's own emitter for the events, and a view and a snapshot it sets. The
 * HUD's unit tests use it too.
 */
/** A top-level page with IndexedDB: what the preview's client says holds. */
const PREVIEW_ENVIRONMENT: Snapshot['environment'] = {
  storage: 'indexeddb',
  framed: false,
  sandboxed: false,
  partitioned: false,
  persistent: null,
  closedTabDelivery: { available: false, reason: 'not-configured' },
};
const STORED = Promise.resolve(true);

export function scriptedClient(initial: PointsView) {
  const emitter = new QuestPointsEmitter();
  let view = initial;
  let snapshot: Snapshot = {
    online: true,
    queueSize: 0,
    deadLetterCount: 0,
    authRequired: false,
    deploymentRefused: false,
    storage: 'indexeddb',
    environment: PREVIEW_ENVIRONMENT,
    points: {},
  };
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
    viewPoints: () => view,
    subscribe(cb) {
      subscribers.add(cb);
      cb(snapshot);
      return () => void subscribers.delete(cb);
    },
  };
  return {
    client,
    emitter,
    /** Listeners still attached (events and subscriptions). */
    listeners: () => emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0) + subscribers.size,
    snapshot: () => snapshot,
    /** A new view, announced as points:changed. */
    setView(next: PointsView) {
      view = next;
      emitter.emit('points:changed', { view });
    },
    setSnapshot(change: Partial<Snapshot>) {
      snapshot = { ...snapshot, ...change };
      for (const cb of subscribers) cb(snapshot);
    },
  };
}

export function createPreviewClient() {
  let history: HistoryEntry[] = [
    { createdAt: '2026-11-20T10:00:00Z', eventPoints: 120, eventName: 'level_1', eventDescription: 'Level 1 cleared', state: 'confirmed' },
  ];
  const scripted = scriptedClient(makeView());
  const { emitter, setSnapshot } = scripted;
  let seq = 0;

  function makeView(): PointsView {
    const sum = (state: HistoryEntry['state']) => history.filter((e) => e.state === state).reduce((total, e) => total + e.eventPoints, 0);
    const [confirmedPoints, sentPoints, pendingPoints] = [sum('confirmed'), sum('sent'), sum('pending')];
    return {
      questId: 'preview',
      serviceUserId: 'designer',
      totalPoints: confirmedPoints + sentPoints + pendingPoints,
      confirmedPoints,
      sentPoints,
      pendingPoints,
      history,
      pending: [],
      confirmedAt: Date.now(),
      stale: false,
    };
  }
  const publish = () => scripted.setView(makeView());

  function entry(award: PendingAward, state: HistoryEntry['state']): HistoryEntry {
    const base = {
      createdAt: new Date().toISOString(),
      eventPoints: award.eventPoints,
      eventName: award.eventName ?? '',
      eventDescription: award.eventDescription ?? '',
      state,
    };
    return state === 'confirmed' ? base : { ...base, idempotencyKey: award.idempotencyKey };
  }
  function replace(award: PendingAward, state: HistoryEntry['state']) {
    history = [entry(award, state), ...history.filter((e) => e.idempotencyKey !== award.idempotencyKey)];
    // Newest first, pending before sent before confirmed, as the SDK orders a view's history.
    const rank = { pending: 0, sent: 1, confirmed: 2 };
    history.sort((a, b) => rank[a.state] - rank[b.state]);
    publish();
  }

  /** An award that ends in `end`: still on its way, saved offline, sent, confirmed by a read, or refused. */
  function award(points: number, description: string, end: 'sending' | 'saved' | 'sent' | 'confirmed' | 'rejected') {
    seq += 1;
    const award: PendingAward = {
      questId: 'preview',
      serviceUserId: 'designer',
      eventPoints: points,
      eventName: description.toLowerCase().replace(/\W+/g, '_'),
      eventDescription: description,
      idempotencyKey: `preview-${seq}`,
      queuedAt: Date.now(),
      seq,
    };
    const offline = end === 'saved';
    if (offline) setSnapshot({ online: false });
    emitter.emit('award:queued', { award, queueSize: 1, persisted: STORED });
    replace(award, 'pending');
    if (offline) setSnapshot({ online: true });
    if (end === 'sent' || end === 'confirmed') {
      emitter.emit('award:sent', { award, persisted: STORED });
      replace(award, end);
    }
    if (end === 'rejected') {
      history = history.filter((e) => e.idempotencyKey !== award.idempotencyKey);
      emitter.emit('award:rejected', {
        deadLetter: { ...award, status: 422, message: 'more points than the policy allows', rejectedAt: Date.now() },
        persisted: STORED,
      });
      setSnapshot({ deadLetterCount: scripted.snapshot().deadLetterCount + 1 });
      publish();
    }
  }

  return {
    client: scripted.client,
    award,
    /** One toast in each state, oldest (confirmed) at the bottom. */
    showEveryState() {
      award(25, 'Boss defeated', 'confirmed');
      award(10, 'Chest opened', 'sent');
      award(5000, 'Too good to be true', 'rejected');
      award(5, 'Gem caught', 'saved');
      award(1, 'Coin caught', 'sending');
    },
    setOnline: (online: boolean) => setSnapshot({ online }),
  };
}
