import type { EnrolledUser } from '../protocol/responses.js';
import { createBackgroundSync } from './background-sync.js';
import { paths } from '../protocol/paths.js';
import { QuestPointsError } from './errors.js';
import { QuestPointsEmitter } from './events.js';
import { createFlusher } from './flusher.js';
import { createLive, pairOf } from './live.js';
import { createFlushLock, type Lease } from './lock.js';
import { createOutbox } from './outbox.js';
import { createReads } from './reads.js';
import { createRescue } from './rescue.js';
import { settlement, toWire, type SendResult } from './send.js';
import { idbKV, memoryKV, type KV } from './store.js';
import { createTabs, type TabMessage } from './tabs.js';
import { answerError, createTransport } from './transport.js';
import { createTriggers, unref } from './triggers.js';
import type { AwardOutcome, DeadLetter, PendingAward, PointsView, QuestPoints, QuestPointsOptions, Snapshot, StorageDegradedReason } from './types.js';
import { parseAward, parseIdentify, parseIds } from './validate.js';

/** A keepalive body must stay under 64 KiB: 20 awards of the largest allowed size fit. */
const PAGEHIDE_AWARDS = 20;

export function createQuestPoints(options: QuestPointsOptions): QuestPoints {
  const { storageName = 'quest-points', maxQueue = 10_000, pollIntervalMs = 30_000, flushDelayMs = 50, historyLimit = 100 } = options;
  const transport = createTransport(options);
  /** Hands the outbox to the service worker for when the network is back (option backgroundSync). */
  const requestSync = createBackgroundSync(options.backgroundSync);
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
  const reads = createReads({ live, cache, fetch: fetchSummary, changed, post: tabs.post });
  const own = options.questId !== undefined && options.serviceUserId !== undefined ? pairOf(parseIds(options.questId, options.serviceUserId)) : undefined;

  const settle = new Map<string, (outcome: AwardOutcome) => void>();
  const watchers = new Map<string, Set<(view: PointsView) => void>>();
  const subscribers = new Set<(snapshot: Snapshot) => void>();
  const touched = new Set<string>();
  /** Pairs this drain acknowledged awards of: read once when it ends. */
  const acked = new Set<string>();
  const ids = new Map<string, string>();
  const added: PendingAward[] = [];
  let online = true;
  let authRequired = false;
  let deadCount = 0;
  let closed = false;
  let queueChanged = false;
  let tickPending = false;
  let snapshot: Snapshot | undefined;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** The own pair's cached state is loaded: until then its view would show a total without the confirmed part. */
  let restored = !own;

  /** Everything observable changes at most once per tick: one write, one round of events. */
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
    if (added.length) {
      const recs = added.splice(0);
      void outbox.commit().then((written) => {
        if (written) tabs.post({ t: 'add', recs });
      });
    }
    if (queueChanged) {
      queueChanged = false;
      events.emit('queue:changed', { queueSize: outbox.mirror.size });
    }
    for (const pair of touched) {
      if (pair === own && !restored) continue;
      const cbs = watchers.get(pair);
      if (!cbs && !events.listenerCount('points:changed')) continue;
      const view = live.view(pair);
      events.emit('points:changed', { view });
      cbs?.forEach((cb) => cb(view));
    }
    touched.clear();
    if (!restored && own) touched.add(own);
    if (subscribers.size) {
      const current = getSnapshot();
      subscribers.forEach((cb) => cb(current));
    }
  }

  function getSnapshot(): Snapshot {
    snapshot ??= {
      online,
      queueSize: outbox.mirror.size,
      deadLetterCount: deadCount,
      authRequired,
      storage,
      points: Object.fromEntries([...new Set([...(own ? [own] : []), ...watchers.keys()])].map((pair) => [pair, live.view(pair)])),
    };
    return snapshot;
  }

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
      acked.add(pair);
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
    queueChanged = true;
    changed();
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

  /** A read or identify: the body of a 2xx answer (null for a 404 when `absent` allows it); else a QuestPointsError. */
  async function call(path: string, body?: unknown, absent = false): Promise<any> {
    try {
      const answer = await transport.request(body ? 'POST' : 'GET', path, body);
      setOnline(true);
      if (answer.status < 300 && answer.body?.success === true) return answer.body;
      if (absent && answer.status === 404) return null;
      throw answerError(answer);
    } catch (error) {
      const code = (error as QuestPointsError).code;
      if (code === 'network' || code === 'timeout') setOnline(false);
      throw error;
    }
  }

  async function fetchSummary(pair: string) {
    const [questId = '', serviceUserId = ''] = pair.split('\n');
    return (await call(paths.pointsOf(questId, serviceUserId))).data;
  }

  function onTabMessage(m: TabMessage) {
    if (closed) return;
    if (m.t === 'add') {
      outbox.addRemote(m.recs);
      m.recs.forEach((r) => changed(pairOf(r)));
      queueChanged = true;
    } else if (m.t === 'done') {
      finish(m.ok, m.dead, false);
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
        const head = outbox.queued().slice(0, PAGEHIDE_AWARDS);
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
  void (async () => {
    if (own) await reads.restore(own);
    restored = true;
    if (own) changed(own);
    for (const award of await outbox.reload()) changed(pairOf(award));
    deadCount = (await outbox.deadLetters()).length;
    queueChanged = true;
    changed();
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
      queueChanged = true;
      changed(pairOf(award));
      flushTimer ??= unref(
        setTimeout(() => {
          flushTimer = undefined;
          void flusher.run(false);
        }, flushDelayMs),
      );
      return { idempotencyKey, persisted, settled };
    },
    flush: () => flusher.run(true),
    async identify(input) {
      const body = parseIdentify(input);
      const key = 'id:' + JSON.stringify(body);
      // A serviceUserId never changes: once known it is answered offline, from memory or the store.
      const known = ids.get(key) ?? (await cache.get(key).catch(() => undefined));
      if (typeof known === 'string') return known;
      const id: string = (await call(paths.identify(), body)).data.serviceUserId;
      ids.set(key, id);
      await cache.setMany([[key, id]]).catch(() => {});
      return id;
    },
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
      const p = parseIds(questId, serviceUserId);
      return (await call(paths.enrollment(p.questId, p.serviceUserId), undefined, true))?.data ?? null;
    },
    async *enrolledUsers(questId = options.questId, { limit, offset = 0 } = {}) {
      const { questId: q } = parseIds(questId, false);
      for (;;) {
        const body = await call(paths.enrolledUsers(q, { limit, offset }));
        const users: EnrolledUser[] = body.data;
        if (users.length) yield users;
        // Offset arithmetic, not nextPage: its shape is the service's business.
        if (!users.length || body.pagination?.nextPage == null) return;
        offset += users.length;
      }
    },
    watchPoints(questId, serviceUserId, cb) {
      const pair = pairOf(parseIds(questId, serviceUserId));
      const cbs = watchers.get(pair) ?? new Set();
      watchers.set(pair, cbs.add(cb));
      snapshot = undefined;
      cb(live.view(pair));
      // A pair already live (the client's own, or watched elsewhere) is read on its own schedule: no extra read.
      if (!reads.isTracked(pair)) {
        reads.track(pair);
        reads.refresh([pair]);
      }
      return () => {
        cbs.delete(cb);
        if (cbs.size) return;
        watchers.delete(pair);
        changed();
      };
    },
    subscribe(cb) {
      subscribers.add(cb);
      cb(getSnapshot());
      return () => void subscribers.delete(cb);
    },
    getSnapshot,
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
