import type { QuestPointsEmitter } from './events.js';
import { QuestPointsError } from './errors.js';
import type { Flusher } from './flusher.js';
import { pairOf, type Live } from './live.js';
import type { Notifier } from './notify.js';
import type { Outbox } from './outbox.js';
import type { Reads } from './reads.js';
import type { Requests } from './requests.js';
import type { ClientState, Session } from './session.js';
import type { Tabs } from './tabs.js';
import { DEFAULTS } from './defaults.js';
import type { AwardOutcome, PendingAward, QuestPoints, QuestPointsOptions } from './types.js';
import { parseAward, parseIds } from './validate.js';

/** What the public methods work on. */
export interface ApiDeps {
  options: QuestPointsOptions;
  state: ClientState;
  events: QuestPointsEmitter;
  outbox: Outbox;
  live: Live;
  notifier: Notifier;
  requests: Requests;
  reads: Reads;
  tabs: Tabs;
  flusher: Flusher;
  session: Session;
}

/** The public methods, over the client's parts. */
export function createApi({ options, state, events, outbox, live, notifier, requests, reads, tabs, session, flusher }: ApiDeps): QuestPoints {
  const { maxQueue = DEFAULTS.maxQueue, flushDelayMs = DEFAULTS.flushDelayMs } = options;
  const pairOfIds = (questId = options.questId, serviceUserId = options.serviceUserId) => pairOf(parseIds(questId, serviceUserId));

  async function fetchPoints(questId?: string, serviceUserId?: string) {
    const pair = pairOfIds(questId, serviceUserId);
    try {
      await reads.read(pair);
    } catch (error) {
      // No answer: the last accepted read, marked stale, if there is one.
      if (!live.base(pair)) throw error;
    }
    return live.view(pair);
  }
  const viewPoints = (questId?: string, serviceUserId?: string) => live.view(pairOfIds(questId, serviceUserId));
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

  const api: QuestPoints = {
    award(input) {
      if (state.closed) throw new QuestPointsError('the client is closed', 'closed');
      const parsed = parseAward(input, options);
      if (outbox.mirror.size >= maxQueue) throw new QuestPointsError(`outbox full (maxQueue ${maxQueue}): award not queued`, 'queue-full');
      const award: PendingAward = { ...parsed, idempotencyKey: crypto.randomUUID(), queuedAt: Date.now(), seq: outbox.nextSeq() };
      const { idempotencyKey } = award;
      // The outbox writes it in a microtask, with every other award of this tick.
      const persisted = outbox.add(award);
      const settled = new Promise<AwardOutcome>((resolve) => session.settling.set(idempotencyKey, resolve));
      session.durability.track(idempotencyKey, persisted);
      events.emit('award:queued', { award, queueSize: outbox.mirror.size, persisted });
      notifier.changed(pairOf(award));
      notifier.queueChanged();
      session.schedule(flushDelayMs, false);
      return { idempotencyKey, persisted, settled };
    },
    flush: () => session.flush(true),
    identify: (input) => requests.identify(input),
    fetchPoints,
    viewPoints,
    watchPoints(questId, serviceUserId, cb) {
      const pair = pairOf(parseIds(questId, serviceUserId));
      const unwatch = notifier.watch(pair, cb);
      // A pair already live (the client's own, or watched elsewhere) is read on its own schedule: no extra read.
      if (!reads.isTracked(pair)) {
        reads.track(pair);
        reads.refresh([pair]);
      }
      return unwatch;
    },
    fetchEnrollment,
    enrolledUsers,
    subscribe: notifier.subscribe,
    getSnapshot: notifier.getSnapshot,
    pending: () => outbox.reload(),
    deadLetters: () => outbox.deadLetters(),
    async retryDeadLetter(key) {
      const letter = (await outbox.deadLetters()).find((d) => d.idempotencyKey === key);
      if (!letter) throw new QuestPointsError(`idempotencyKey ${key} is not a dead letter`, 'invalid', undefined, 'idempotencyKey');
      // A refused award was never applied, and the service may remember the refusal under the old key: new key.
      // award() keeps only the award's own fields (the schema drops status, message and the old key).
      const { idempotencyKey } = api.award(letter);
      await api.discardDeadLetter(key);
      return idempotencyKey;
    },
    async discardDeadLetter(key) {
      if (!(await outbox.dropDead(key))) return;
      tabs.post({ t: 'dead' });
      await session.recountDead();
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
      if (state.closed) return;
      state.closed = true;
      flusher.stop();
      session.stop();
      tabs.close();
      await outbox.commit();
      await flusher.current();
      session.close();
      events.removeAllListeners();
    },
    getPoints: fetchPoints,
    view: viewPoints,
    getEnrollment: fetchEnrollment,
  };
  return api;
}
