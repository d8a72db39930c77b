import { uuid } from './uuid.js';
import type { Announcer } from './announce.js';
import { DEFAULTS } from './defaults.js';
import { QuestPointsError } from './errors.js';
import type { QuestPointsEmitter } from './events.js';
import type { Flush } from './flush.js';
import type { Live } from './live.js';
import type { Notifier } from './notify.js';
import type { Outbox } from './outbox.js';
import { pairOf } from './pair.js';
import type { Reads } from './reads.js';
import type { Requests } from './requests.js';
import type { ClientStore } from './state.js';
import type { Tabs } from './tabs.js';
import type { Tracked } from './tracked.js';
import type { QuestPoints } from './client-types.js';
import type { QuestPointsOptions } from './options.js';
import type { AwardHandle, AwardInput, PendingAward } from './types.js';
import { parseAward, parseIds } from './validate.js';

/** What the public methods work on. */
export interface ApiDeps {
  options: QuestPointsOptions;
  store: ClientStore;
  events: QuestPointsEmitter;
  outbox: Outbox;
  live: Live;
  tracked: Tracked;
  notifier: Notifier;
  requests: Requests;
  reads: Reads;
  tabs: Tabs;
  announcer: Announcer;
  flush: Flush;
  /** Stops the browser's signals (startup.ts). */
  stop(): void;
}

/** The public methods, over the client's parts: they read snapshots and send actions, never write another's state. */
export function createApi(deps: ApiDeps): QuestPoints {
  const { options, store, events, outbox, live, tracked, notifier, requests, reads, tabs, announcer, flush } = deps;
  const { maxQueue = DEFAULTS.maxQueue, flushDelayMs = DEFAULTS.flushDelayMs } = options;
  const pairOfIds = (questId = options.questId, serviceUserId = options.serviceUserId) => pairOf(parseIds(questId, serviceUserId));

  async function fetchPoints(questId?: string, serviceUserId?: string) {
    const pair = pairOfIds(questId, serviceUserId);
    try {
      await reads.read(pair);
    } catch (error) {
      // No answer: the last accepted read, marked stale, if there is one.
      if (!live.base(pair)) throw error;
    } finally {
      // Not watched: its state goes after a grace.
      tracked.used(pair);
    }
    return live.view(pair);
  }
  function viewPoints(questId?: string, serviceUserId?: string) {
    const pair = pairOfIds(questId, serviceUserId);
    tracked.used(pair);
    return live.view(pair);
  }
  async function fetchEnrollment(questId = options.questId, serviceUserId = options.serviceUserId) {
    const ids = parseIds(questId, serviceUserId);
    return (await requests.account()).enrollment(ids.questId, ids.serviceUserId);
  }
  /** The ids are checked at the call (it throws there, as a read does); the pages come from account.ts. */
  function enrolledUsers(questId = options.questId, { limit, offset = 0 }: { limit?: number; offset?: number } = {}) {
    const quest = parseIds(questId, false).questId;
    return (async function* pages() {
      yield* (await requests.account()).enrolledUsers(quest, limit, offset);
    })();
  }

  /** award(), under a key of the caller's (a new one, or a retried dead letter's derived one). */
  function enqueue(input: AwardInput, idempotencyKey: string): AwardHandle {
    if (store.get().closed) throw new QuestPointsError('the client is closed', 'closed');
    const parsed = parseAward(input, options);
    if (outbox.size() >= maxQueue) throw new QuestPointsError(`outbox full (maxQueue ${maxQueue}): award not queued`, 'queue-full');
    const award: PendingAward = { ...parsed, idempotencyKey, queuedAt: Date.now(), seq: outbox.nextSeq() };
    // The outbox writes it in a microtask, with every other award of this tick.
    const persisted = outbox.add(award);
    const settled = announcer.settled(idempotencyKey, persisted);
    events.emit('award:queued', { award, queueSize: outbox.size(), persisted });
    notifier.changed(pairOf(award));
    notifier.queueChanged();
    flush.schedule(flushDelayMs, false);
    return { idempotencyKey, persisted, settled };
  }

  const api: QuestPoints = {
    award: (input) => enqueue(input, uuid()),
    flush: () => flush.flush(true),
    identify: (input) => requests.identify(input),
    fetchPoints,
    viewPoints,
    watchPoints(questId, serviceUserId, cb) {
      const pair = pairOf(parseIds(questId, serviceUserId));
      // A pair already live (the client's own, or watched elsewhere) is read on its own schedule: no extra read.
      if (tracked.watch(pair)) reads.refresh([pair]);
      const unwatch = notifier.watch(pair, cb);
      const done = { unwatched: false };
      return () => {
        if (done.unwatched) return;
        done.unwatched = true;
        unwatch();
        tracked.unwatch(pair);
      };
    },
    fetchEnrollment,
    enrolledUsers,
    subscribe: notifier.subscribe,
    getSnapshot: notifier.getSnapshot,
    pending: () => outbox.reload(),
    deadLetters: () => outbox.deadLetters(),
    // A refused award was never applied, and the service may remember the refusal under the old key: a new key, derived
    // from the old one so every retry of this letter, here or in another tab, is one award (retry-dead.ts). award()'s
    // path keeps only the award's own fields (the schema drops status, message and the old key).
    retryDeadLetter: (key) => import('./retry-dead.js').then(({ retryDead }) => retryDead(key, { outbox, enqueue, discard: api.discardDeadLetter })),
    async discardDeadLetter(key) {
      if (!(await outbox.dropDead(key))) return;
      tabs.post({ t: 'dead' });
      await announcer.recountDead();
    },
    on(event, fn) {
      events.on(event, fn as never);
      return api;
    },
    off(event, fn) {
      events.off(event, fn as never);
      return api;
    },
    once(event, fn) {
      events.once(event, fn as never);
      return api;
    },
    async close() {
      if (store.get().closed) return;
      store.dispatch({ type: 'closed' });
      flush.stop();
      deps.stop();
      tabs.close();
      await outbox.commit();
      await flush.current();
      announcer.close();
      events.removeAllListeners();
    },
    getPoints: fetchPoints,
    view: viewPoints,
    getEnrollment: fetchEnrollment,
  };
  return api;
}
