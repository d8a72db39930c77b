import { paths } from '../protocol/paths.js';
import { QuestPointsError } from './errors.js';
import { QuestPointsEmitter } from './events.js';
import { createFlusher } from './flusher.js';
import { createLive, pairOf } from './live.js';
import { createNotifier } from './notify.js';
import { createFlushLock, type Lease } from './lock.js';
import { createOutbox } from './outbox.js';
import { createReads } from './reads.js';
import { createRequests } from './requests.js';
import { createRescue } from './rescue.js';
import { settlement, toWire, type SendResult } from './send.js';
import { idbKV, memoryKV, type KV } from './store.js';
import { createTabs, type TabMessage } from './tabs.js';
import { createTransport } from './transport.js';
import { createTriggers, unref } from './triggers.js';
import type { AwardOutcome, DeadLetter, PendingAward, QuestPoints, QuestPointsOptions, Snapshot, StorageDegradedReason } from './types.js';
import { parseAward, parseIdentify, parseIds } from './validate.js';

/** A keepalive body must stay under 64 KiB: 20 awards of the largest allowed size fit. */
const PAGEHIDE_AWARDS = 20;

export function createQuestPoints(options: QuestPointsOptions): QuestPoints {
  const { storageName = 'quest-points', maxQueue = 10_000, pollIntervalMs = 30_000, flushDelayMs = 50, historyLimit = 100 } = options;
  const transport = createTransport(options);
  /** Hands the outbox to the service worker for when the network is back (option backgroundSync). */
  const requestSync = () => options.backgroundSync?.();
  const events = new QuestPointsEmitter();
  const name = 'quest-points:' + storageName;

  const hasIdb = typeof indexedDB !== 'undefined';
  const wantIdb = options.storage === 'indexeddb' || (options.storage !== 'memory' && (hasIdb || typeof document !== 'undefined'));
  const useIdb = wantIdb && hasIdb;
  let storage: Snapshot['storage'] = useIdb ? 'indexeddb' : 'memory';
  const kv = <T>(suffix: string): KV<T> => (useIdb ? idbKV<T>(`${storageName}:${suffix}`) : memoryKV<T>());
  const degrade = (reason: StorageDegradedReason, error?: unknown) => {
    storage = 'degraded';
    changed();
    events.emit('storage:degraded', { reason, error });
  };
  const cache = kv<any>('cache');
  const outbox = createOutbox(kv('outbox'), kv('dead'), degrade, useIdb ? createRescue(storageName) : undefined);
  if (wantIdb && !hasIdb) queueMicrotask(() => degrade('unavailable'));
  const tabs = createTabs(name, useIdb, onTabMessage);
  const live = createLive(outbox.pendingOf, historyLimit);
  const own = options.questId !== undefined && options.serviceUserId !== undefined ? pairOf(parseIds(options.questId, options.serviceUserId)) : undefined;
  const settle = new Map<string, (outcome: AwardOutcome) => void>();
  /** Pairs this drain acknowledged awards of: read once when it ends. */
  const acked = new Set<string>();
  /** Awards of this tick, written together by the tick's commit. */
  const added: PendingAward[] = [];
  let online = true;
  let authRequired = false;
  let deadCount = 0;
  let closed = false;
  /** The start-up read of the outbox is in: before it, this tab's mirror is not the head of the queue. */
  let loaded = false;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  const notifier = createNotifier({
    events,
    live,
    own,
    queueSize: () => outbox.mirror.size,
    status: () => ({ online, deadLetterCount: deadCount, authRequired, storage }),
    beforeNotify() {
      if (!added.length) return;
      const recs = added.splice(0);
      void outbox.commit().then((written) => {
        if (written) tabs.post({ t: 'add', recs });
      });
    },
  });
  const { changed } = notifier;
  const requests = createRequests(transport, cache, setOnline);
  const reads = createReads({ live, cache, fetch: requests.summary, changed, post: tabs.post });

  function setOnline(value: boolean) {
    if (online === value) return;
    online = value;
    changed();
    events.emit('connection:changed', { online });
  }

  /** Resolves an award's `settled` promise. */
  function resolve(outcome: AwardOutcome) {
    settle.get(outcome.idempotencyKey)?.(outcome);
    settle.delete(outcome.idempotencyKey);
  }

  /** Acknowledged and refused awards leave the outbox; `local`: this tab sent them (else another tab told us). */
  function finish(ok: string[], dead: DeadLetter[], local: boolean) {
    const sent = outbox.remove(ok, local);
    reads.acknowledged(sent, local);
    for (const award of sent) {
      const pair = pairOf(award);
      // The tab that drained reads once after its drain and shares the read; the others adopt it.
      if (local) acked.add(pair);
      resolve({ status: 'sent', idempotencyKey: award.idempotencyKey });
      events.emit('award:sent', { award });
      changed(pair);
    }
    outbox.remove(
      dead.map((d) => d.idempotencyKey),
      local,
    );
    for (const deadLetter of dead) {
      deadCount++;
      resolve({ status: 'rejected', idempotencyKey: deadLetter.idempotencyKey, httpStatus: deadLetter.status, message: deadLetter.message });
      events.emit('award:rejected', { deadLetter });
      changed(pairOf(deadLetter));
    }
    if (local && (ok.length || dead.length)) tabs.post({ t: 'done', ok, dead });
    notifier.queueChanged();
  }

  async function settleBatch(head: PendingAward[], results: SendResult[]) {
    const { ok, dead } = settlement(head, results);
    if (dead.length) await outbox.kill(dead);
    finish(ok, dead, true);
  }

  const flusher = createFlusher({
    outbox,
    transport,
    lock: createFlushLock(name, useIdb ? (cache as KV<Lease>) : undefined),
    backoff: options.backoff ?? {},
    pollIntervalMs,
    closed: () => closed,
    setOnline,
    settle: settleBatch,
    auth(error) {
      authRequired = error !== undefined;
      changed();
      if (authRequired) {
        requestSync();
        events.emit('auth:required', { error });
      }
    },
    retrying(payload) {
      requestSync();
      events.emit('award:retrying', payload);
    },
    drained: () => events.emit('queue:drained', { queueSize: 0 }),
    afterDrain() {
      reads.refresh(acked);
      acked.clear();
    },
    error: (error) => events.emit('error', { error, during: 'flush' }),
  });

  function onTabMessage(m: TabMessage) {
    if (closed) return;
    if (m.t === 'add') {
      outbox.addRemote(m.recs);
      m.recs.forEach((r) => changed(pairOf(r)));
      notifier.queueChanged();
    } else if (m.t === 'done') {
      finish(m.ok, m.dead, false);
    } else if (m.t === 'sync-failed') {
      events.emit('sync:failed', m.failure);
    } else {
      reads.adopt(m.pair, m.summary, m.absorbed);
    }
  }

  const triggers = createTriggers(
    {
      online() {
        setOnline(true);
        void flusher.run(true);
        reads.refresh();
      },
      offline: () => setOnline(false),
      visible() {
        void flusher.run(true);
        reads.refresh();
      },
      // Best effort: the page may be gone before any answer. The awards stay queued; the next load resends the same keys.
      pagehide() {
        void outbox.commit();
        outbox.rescue();
        // Sent before the start-up read, it would put this tab's new awards ahead of what earlier pages left.
        const head = loaded ? outbox.queued().slice(0, PAGEHIDE_AWARDS) : [];
        if (head.length && transport.batch) transport.beacon(paths.batch(), { awards: head.map(toWire) });
      },
      async poll() {
        if (outbox.degraded && (await outbox.recover())) {
          storage = 'indexeddb';
          changed();
        }
        if (!triggers.visible()) return;
        void flusher.run(false);
        reads.refresh();
      },
    },
    pollIntervalMs,
  );

  // Start-up: the client's own pair from the cache (an offline start shows the last known total), what an earlier
  // page left in the outbox goes out first, and the pair is read.
  // The outbox is read first in the store's queue of work, so an award committed by now was committed after it.
  const startupRead = outbox.reload().then((awards) => {
    loaded = true;
    return awards;
  });
  void (async () => {
    if (own) await reads.restore(own);
    notifier.restored();
    for (const award of await startupRead) changed(pairOf(award));
    deadCount = (await outbox.deadLetters()).length;
    notifier.queueChanged();
    if (own) reads.refresh([own]);
    await flusher.run(false);
  })();

  const api: QuestPoints = {
    award(input) {
      if (closed) throw new QuestPointsError('the client is closed', 'closed');
      const parsed = parseAward(input, options);
      if (outbox.mirror.size >= maxQueue) throw new QuestPointsError(`outbox full (maxQueue ${maxQueue}): award not queued`, 'queue-full');
      const award: PendingAward = { ...parsed, idempotencyKey: crypto.randomUUID(), queuedAt: Date.now(), seq: outbox.nextSeq() };
      const { idempotencyKey } = award;
      // Written by the next tick's commit, with every other award of this tick.
      const persisted = outbox.add(award).then((written) => written && useIdb);
      added.push(award);
      const settled = new Promise<AwardOutcome>((resolve) => settle.set(idempotencyKey, resolve));
      // Once it is in the store, where the service worker reads it.
      if (!online) void persisted.then(requestSync);
      events.emit('award:queued', { award, queueSize: outbox.mirror.size });
      changed(pairOf(award));
      notifier.queueChanged();
      flushTimer ??= unref(
        setTimeout(() => {
          flushTimer = undefined;
          void flusher.run(false);
        }, flushDelayMs),
      );
      return { idempotencyKey, persisted, settled };
    },
    flush: () => flusher.run(true),
    identify: async (input) => requests.identify(parseIdentify(input)),
    async getPoints(questId = options.questId, serviceUserId = options.serviceUserId) {
      const pair = pairOf(parseIds(questId, serviceUserId));
      try {
        await reads.read(pair);
      } catch (error) {
        // No answer: the last accepted read, marked stale, if there is one.
        if (!live.base(pair)) throw error;
      }
      return live.view(pair);
    },
    view: (questId = options.questId, serviceUserId = options.serviceUserId) => live.view(pairOf(parseIds(questId, serviceUserId))),
    async getEnrollment(questId = options.questId, serviceUserId = options.serviceUserId) {
      const ids = parseIds(questId, serviceUserId);
      return requests.enrollment(ids.questId, ids.serviceUserId);
    },
    enrolledUsers: (questId = options.questId, { limit, offset = 0 } = {}) => requests.enrolledUsers(parseIds(questId, false).questId, limit, offset),
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
      await outbox.dropDead(key);
      deadCount = Math.max(0, deadCount - 1);
      changed();
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
      if (closed) return;
      closed = true;
      clearTimeout(flushTimer);
      flusher.stop();
      triggers.dispose();
      tabs.close();
      await outbox.commit();
      await flusher.current();
      for (const idempotencyKey of settle.keys()) resolve({ status: 'closed', idempotencyKey });
      events.removeAllListeners();
    },
  };
  return api;
}
