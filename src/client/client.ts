import type { EnrolledUser, PointsSummary } from '../protocol/responses.js';
import { BATCH_MAX_AWARDS } from '../protocol/limits.js';
import { paths } from '../protocol/paths.js';
import { createEmitter } from './emitter.js';
import { QuestPointsError } from './errors.js';
import { createFlushLock, type Lease } from './lock.js';
import { createOutbox, pointsKey } from './outbox.js';
import { backoffDelay } from './retry.js';
import { sendAwards, toWire } from './send.js';
import { idbKV, memoryKV, type KV } from './store.js';
import { answerError, createTransport } from './transport.js';
import type {
  AwardOutcome,
  DeadLetter,
  PendingAward,
  PointsView,
  QuestPoints,
  QuestPointsEvents,
  QuestPointsOptions,
  Snapshot,
  StorageDegradedReason,
} from './types.js';
import { createRescue } from './rescue.js';
import { parseAward, parseIdentify, parseIds } from './validate.js';

/** Totals are exact to 6 decimals (0.1 + 0.2 shows 0.3), as the service reports them. */
const round = (n: number) => Math.round(n * 1e6) / 1e6;
/** A keepalive body must stay under 64 KiB: 20 awards of the largest allowed size fit. */
const PAGEHIDE_AWARDS = 20;

/** What tabs tell each other over the BroadcastChannel. */
type Message =
  | { t: 'add'; recs: PendingAward[] }
  | { t: 'done'; ok: string[]; dead: DeadLetter[] }
  | { t: 'points'; pair: string; summary: PointsSummary };

const pairOf = (ids: { questId: string; serviceUserId: string }) => pointsKey(ids.questId, ids.serviceUserId);
/** Node timers must not keep a script alive. */
const unref = <T>(timer: T): T => ((timer as any)?.unref?.(), timer);

export function createQuestPoints(options: QuestPointsOptions): QuestPoints {
  const { storageName = 'quest-points', maxQueue = 10_000, pollIntervalMs = 30_000, flushDelayMs = 50, backoff = {} } = options;
  const transport = createTransport(options);
  const { emit, ...events } = createEmitter<QuestPointsEvents>();
  const g = globalThis as any;
  const name = 'quest-points:' + storageName;

  const hasIdb = typeof indexedDB !== 'undefined';
  const wantIdb = options.storage === 'indexeddb' || (options.storage !== 'memory' && (hasIdb || typeof document !== 'undefined'));
  const useIdb = wantIdb && hasIdb;
  let storage: Snapshot['storage'] = useIdb ? 'indexeddb' : 'memory';
  const kv = <T>(suffix: string): KV<T> => (useIdb ? idbKV<T>(`${storageName}:${suffix}`) : memoryKV<T>());
  const degrade = (reason: StorageDegradedReason, error?: unknown) => {
    storage = 'degraded';
    changed();
    emit('storage:degraded', { reason, error });
  };
  const cache = kv<any>('cache');
  const outbox = createOutbox(kv('outbox'), kv('dead'), degrade, useIdb ? createRescue(storageName) : undefined);
  if (wantIdb && !hasIdb) queueMicrotask(() => degrade('unavailable'));
  const lock = createFlushLock(name, useIdb ? (cache as KV<Lease>) : undefined);
  const channel = useIdb && typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel(name) : undefined;
  const post = (message: Message) => closed || channel?.postMessage(message);

  const settle = new Map<string, (outcome: AwardOutcome) => void>();
  const confirmed = new Map<string, { summary: PointsSummary; at: number; stale: boolean }>();
  const watchers = new Map<string, Set<(view: PointsView) => void>>();
  const subscribers = new Set<(snapshot: Snapshot) => void>();
  const views = new Map<string, PointsView>();
  const touched = new Set<string>();
  const ids = new Map<string, string>();
  const added: PendingAward[] = [];
  const cleanups: (() => void)[] = [];
  let online = true;
  let authRequired = false;
  let deadCount = 0;
  let closed = false;
  let retryAt = 0;
  let backoffAttempt = 0;
  let queueChanged = false;
  let tickPending = false;
  let snapshot: Snapshot | undefined;
  let flushing: Promise<void> | undefined;
  let rerun: Promise<void> | undefined;
  let rerunForced = false;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const visible = () => g.document?.visibilityState !== 'hidden';

  /** Everything observable changes at most once per tick: one write, one round of events. */
  function changed(pair?: string) {
    if (pair) touched.add(pair), views.delete(pair);
    snapshot = undefined;
    if (!tickPending) (tickPending = true), queueMicrotask(tick);
  }

  function tick() {
    tickPending = false;
    if (added.length) {
      const recs = added.splice(0);
      void outbox.commit().then((written) => written && post({ t: 'add', recs }));
    }
    if (queueChanged) (queueChanged = false), emit('queue:changed', { queueSize: outbox.mirror.size });
    for (const pair of touched) {
      const cbs = watchers.get(pair);
      if (!cbs && !events.count('points:changed')) continue;
      const current = view(pair);
      emit('points:changed', { view: current });
      cbs?.forEach((cb) => cb(current));
    }
    touched.clear();
    if (subscribers.size) {
      const current = getSnapshot();
      subscribers.forEach((cb) => cb(current));
    }
  }

  function view(pair: string): PointsView {
    let current = views.get(pair);
    if (current) return current;
    const [questId = '', serviceUserId = ''] = pair.split('\n');
    const known = confirmed.get(pair);
    const pending = outbox.pendingOf(pair).sort((a, b) => b.seq - a.seq);
    const pendingPoints = round(pending.reduce((sum, a) => sum + a.eventPoints, 0));
    const confirmedPoints = known?.summary.totalPoints ?? 0;
    current = {
      questId,
      serviceUserId,
      totalPoints: round(confirmedPoints + pendingPoints),
      confirmedPoints,
      pendingPoints,
      history: known?.summary.history ?? [],
      pending,
      confirmedAt: known?.at ?? null,
      stale: known?.stale ?? false,
    };
    views.set(pair, current);
    return current;
  }

  function getSnapshot(): Snapshot {
    return (snapshot ??= {
      online,
      queueSize: outbox.mirror.size,
      deadLetterCount: deadCount,
      authRequired,
      storage,
      points: Object.fromEntries([...watchers.keys()].map((pair) => [pair, view(pair)])),
    });
  }

  function setOnline(value: boolean) {
    if (online === value) return;
    online = value;
    changed();
    emit('connection:changed', { online });
  }

  function setConfirmed(pair: string, summary: PointsSummary, stale = false, share = false) {
    confirmed.set(pair, { summary, at: Date.now(), stale });
    if (share) post({ t: 'points', pair, summary });
    changed(pair);
  }

  /** Resolves an award's `settled` promise. */
  function resolve(outcome: AwardOutcome) {
    settle.get(outcome.idempotencyKey)?.(outcome);
    settle.delete(outcome.idempotencyKey);
  }

  /** Acknowledged and refused awards leave the outbox; `local`: this tab sent them (else another tab told us). */
  function finish(ok: string[], dead: DeadLetter[], local: boolean) {
    for (const award of outbox.remove(ok, local)) {
      const pair = pairOf(award);
      const known = confirmed.get(pair);
      // Count it as confirmed until the next read, so the total never dips between acknowledgement and refresh.
      if (known) setConfirmed(pair, { ...known.summary, totalPoints: round(known.summary.totalPoints + award.eventPoints) }, known.stale);
      resolve({ status: 'sent', idempotencyKey: award.idempotencyKey });
      emit('award:sent', { award });
      changed(pair);
    }
    outbox.remove(
      dead.map((d) => d.idempotencyKey),
      local,
    );
    for (const deadLetter of dead) {
      deadCount++;
      resolve({ status: 'rejected', idempotencyKey: deadLetter.idempotencyKey, httpStatus: deadLetter.status, message: deadLetter.message });
      emit('award:rejected', { deadLetter });
      changed(pairOf(deadLetter));
    }
    if (local && (ok.length || dead.length)) post({ t: 'done', ok, dead });
    queueChanged = true;
    changed();
  }

  async function drain(): Promise<void> {
    // The store is read once per drain (other tabs' awards and acknowledgements); after that the mirror, which
    // BroadcastChannel keeps current, gives each next batch. Reading the store per batch made a drain quadratic.
    for (let fromStore = true; !closed; fromStore = false) {
      const head = (fromStore ? await outbox.reload() : outbox.queued()).slice(0, BATCH_MAX_AWARDS);
      if (!head.length) return void emit('queue:drained', { queueSize: 0 });
      const results = await sendAwards(transport, head);
      const first = results[0]!;
      if (first.outcome !== 'auth') setOnline(!(first.outcome === 'retry' && first.status === undefined));
      const ok: string[] = [];
      const dead: DeadLetter[] = [];
      let afterMs = 0;
      let authError: unknown;
      results.forEach((r, i) => {
        const award = head[i]!;
        if (r.outcome === 'ok') ok.push(award.idempotencyKey);
        if (r.outcome === 'rejected') dead.push({ ...award, status: r.status!, message: r.message!, rejectedAt: Date.now() });
        if (r.outcome === 'retry') afterMs = Math.max(afterMs, r.retryAfterMs ?? 0);
        if (r.outcome === 'auth') authError = r.error;
      });
      if (dead.length) await outbox.kill(dead);
      finish(ok, dead, true);
      void refreshWatched(new Set(head.filter((a) => ok.includes(a.idempotencyKey)).map(pairOf)));
      if (authError) {
        // Paused: the poll, `online`, a visible tab or flush() try getToken again.
        retryAt = Date.now() + pollIntervalMs;
        authRequired = true;
        changed();
        return void emit('auth:required', { error: authError });
      }
      if (results.some((r) => r.outcome === 'retry')) {
        // A batch that settled some awards made progress: the backoff starts over (Retry-After still holds). Otherwise
        // a steady fraction of faults, which almost every 100-award batch meets, would push every send to maxMs.
        if (ok.length || dead.length) backoffAttempt = 0;
        const delayMs = backoffDelay(backoffAttempt++, backoff.baseMs ?? 1000, backoff.maxMs ?? 60_000, afterMs);
        retryAt = Date.now() + delayMs;
        clearTimeout(retryTimer);
        retryTimer = unref(setTimeout(() => void run(true), delayMs));
        results.forEach(
          ({ outcome, reason, status }, i) =>
            outcome === 'retry' && emit('award:retrying', { award: head[i]!, reason: reason!, status, attempt: backoffAttempt, delayMs }),
        );
        return;
      }
      retryAt = backoffAttempt = 0;
      if (authRequired) (authRequired = false), changed();
    }
  }

  /** `force` ignores backoff and the auth pause: flush(), `online`, a visible tab, the retry timer. */
  function run(force: boolean): Promise<void> {
    if (closed || (!force && Date.now() < retryAt)) return Promise.resolve();
    // A trigger during a flush (even while its lock is being released) runs once more right after it, forced only
    // if a forced trigger asked: the flush that just ended may have set a backoff that the others must respect.
    if (flushing) {
      rerunForced ||= force;
      return (rerun ??= flushing.then(() => {
        const forced = rerunForced;
        rerun = undefined;
        rerunForced = false;
        return run(forced);
      }));
    }
    // A degraded tab's awards exist only in its memory: it sends them itself, the service dedupes by key.
    return (flushing = (outbox.degraded ? drain() : lock(drain))
      .then(
        () => {},
        (error) => emit('error', { error, during: 'flush' }),
      )
      .finally(() => (flushing = undefined)));
  }

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

  async function getPoints(questId = options.questId, serviceUserId = options.serviceUserId): Promise<PointsView> {
    const p = parseIds(questId, serviceUserId);
    const pair = pairOf(p);
    try {
      setConfirmed(pair, (await call(paths.pointsOf(p.questId, p.serviceUserId))).data, false, true);
    } catch (error) {
      const known = confirmed.get(pair);
      if (!known) throw error;
      setConfirmed(pair, known.summary, true);
    }
    return view(pair);
  }

  async function refreshWatched(pairs: Iterable<string> = watchers.keys()) {
    for (const pair of [...pairs]) if (watchers.has(pair)) await getPoints(...(pair.split('\n') as [string, string])).catch(() => {});
  }

  const listen = (target: any, type: string, fn: () => void) => {
    if (!target?.addEventListener) return;
    target.addEventListener(type, fn);
    cleanups.push(() => target.removeEventListener(type, fn));
  };
  listen(g, 'online', () => (setOnline(true), void run(true)));
  listen(g, 'offline', () => setOnline(false));
  listen(g.document, 'visibilitychange', () => visible() && (void run(true), void refreshWatched()));
  // Best effort: the page may be gone before any answer. The awards stay queued; the next load resends the same keys.
  listen(g, 'pagehide', () => {
    void outbox.commit();
    outbox.rescue();
    const head = [...outbox.mirror.values()].sort((a, b) => a.seq - b.seq).slice(0, PAGEHIDE_AWARDS);
    if (head.length && transport.batch) transport.beacon(paths.batch(), { awards: head.map(toWire) });
  });
  const poll = unref(
    setInterval(async () => {
      if (outbox.degraded && (await outbox.recover())) (storage = 'indexeddb'), changed();
      if (visible()) void run(false), void refreshWatched();
    }, pollIntervalMs),
  );
  cleanups.push(() => clearInterval(poll));
  if (channel)
    channel.onmessage = ({ data: m }: MessageEvent<Message>) => {
      if (closed) return;
      if (m.t === 'add') {
        outbox.addRemote(m.recs);
        m.recs.forEach((r) => changed(pairOf(r)));
        queueChanged = true;
      } else if (m.t === 'done') finish(m.ok, m.dead, false);
      else if (m.t === 'points') setConfirmed(m.pair, m.summary);
    };

  // Start-up: what an earlier page left in the outbox goes out first.
  void (async () => {
    for (const award of await outbox.reload()) changed(pairOf(award));
    deadCount = (await outbox.deadLetters()).length;
    queueChanged = true;
    changed();
    await run(false);
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
      emit('award:queued', { award, queueSize: outbox.mirror.size });
      queueChanged = true;
      changed(pairOf(award));
      flushTimer ??= unref(setTimeout(() => ((flushTimer = undefined), void run(false)), flushDelayMs));
      return { idempotencyKey, persisted, settled };
    },
    flush: () => run(true),
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
    getPoints,
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
      cb(view(pair));
      void refreshWatched([pair]);
      return () => {
        cbs.delete(cb);
        if (!cbs.size) watchers.delete(pair), changed();
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
    on: (event, fn) => (events.on(event, fn), api),
    off: (event, fn) => (events.off(event, fn), api),
    once: (event, fn) => (events.once(event, fn), api),
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(flushTimer);
      clearTimeout(retryTimer);
      cleanups.forEach((fn) => fn());
      channel?.close();
      await outbox.commit();
      await flushing;
      for (const idempotencyKey of settle.keys()) resolve({ status: 'closed', idempotencyKey });
      events.clear();
    },
  };
  return api;
}
