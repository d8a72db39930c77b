import { paths } from '../protocol/paths.js';
import type { QuestPointsEmitter } from './events.js';
import type { Durability } from './durability.js';
import type { Flusher, FlushResult } from './flusher.js';
import { pairOf } from './live.js';
import type { Notifier } from './notify.js';
import type { Outbox } from './outbox.js';
import type { Reads } from './reads.js';
import { toWire, type SendResult } from './send.js';
import { applyTabMessage, settleBatch, type Settled } from './settle.js';
import type { Tabs, TabMessage } from './tabs.js';
import type { Transport } from './transport.js';
import { createTriggers, unref } from './triggers.js';
import type { AwardOutcome, PendingAward, Snapshot, StorageDegradedReason } from './types.js';

/** The client's own state: what a snapshot shows besides the queue and the points, and its life cycle. */
export interface ClientState extends Omit<Snapshot, 'queueSize' | 'points' | 'environment'> {
  closed: boolean;
  /** The start-up read of the outbox is in: before it, this tab's mirror is not the head of the queue. */
  loaded: boolean;
}

export interface SessionDeps {
  state: ClientState;
  events: QuestPointsEmitter;
  outbox: Outbox;
  notifier: Notifier;
  reads: Reads;
  tabs: Tabs;
  flusher: Flusher;
  transport: Transport;
  /** The client's own pair, read from start-up on. */
  own: string | undefined;
  pollIntervalMs: number;
  /** Each award's `persisted`, for the award:* events. */
  durability: Durability;
  /** The option backgroundSync: hands the outbox to the service worker for when the network is back. */
  requestSync(): void;
  /** Where awards are kept changed: memory (why) or IndexedDB again (environment.ts). */
  storageChanged?(storage: 'indexeddb' | 'memory', reason?: StorageDegradedReason): void;
}

/** A keepalive body must stay under 64 KiB: 20 awards of the largest allowed size fit. */
const PAGEHIDE_AWARDS = 20;
/** Awards per 'add' message to the other tabs: cloning a thousand records for BroadcastChannel takes about 1 ms. */
const TELL_AWARDS = 1000;

/**
 * What happens to the client's state, in one place: answers and their absence (online), flush results (auth pause,
 * retries, drained), settled batches (this tab's and the others'), storage failures, the browser's signals and
 * start-up. Each award's `settled` promise is resolved here. The client assembles this; nothing else writes `state`.
 */
export function createSession(deps: SessionDeps) {
  const { state, events, outbox, notifier, reads, flusher, transport, own } = deps;
  const { changed } = notifier;
  /** Each queued award's `settled` resolver, until it settles. */
  const settling = new Map<string, (outcome: AwardOutcome) => void>();
  /** Pairs this drain acknowledged awards of: read once when it ends. */
  const acked = new Set<string>();
  /** The next run of the flusher: after an award (unforced) or at the end of a backoff (forced). */
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The last flush result told (the callers that joined one drain share one result object). */
  let last: FlushResult | undefined;
  /** Dead-letter counts asked for: the latest one wins. */
  let counts = 0;

  function set<K extends keyof ClientState>(key: K, value: ClientState[K]) {
    if (state[key] === value) return false;
    state[key] = value;
    changed();
    return true;
  }

  function setOnline(online: boolean) {
    if (set('online', online)) events.emit('connection:changed', { online });
  }

  function resolve(outcome: AwardOutcome) {
    settling.get(outcome.idempotencyKey)?.(outcome);
    settling.delete(outcome.idempotencyKey);
  }

  /** What left the outbox, told: `settled` promises, events, views. `local`: this tab's drain (it reads after). */
  function announce({ sent, dead }: Settled, local: boolean) {
    reads.acknowledged(sent, local);
    for (const award of sent) {
      const pair = pairOf(award);
      if (local) acked.add(pair);
      const { idempotencyKey } = award;
      resolve({ outcome: 'sent', status: 'sent', idempotencyKey });
      events.emit('award:sent', { award, persisted: deps.durability.done(idempotencyKey) });
      changed(pair);
    }
    // Counted at once, and again from the store (a count read in flight may predate these letters).
    if (dead.length) void recountDead();
    for (const deadLetter of dead) {
      state.deadLetterCount++;
      const { idempotencyKey, status: httpStatus, message } = deadLetter;
      resolve({ outcome: 'rejected', status: 'rejected', idempotencyKey, deadLetter, httpStatus, message });
      events.emit('award:rejected', { deadLetter, persisted: deps.durability.done(idempotencyKey) });
      changed(pairOf(deadLetter));
    }
    notifier.queueChanged();
  }

  /** The flusher's settle: one batch's results, from this tab. */
  async function settle(head: Parameters<typeof settleBatch>[2], results: SendResult[]) {
    const [first] = results;
    // Offline only for lack of network: a retry the relay answered (deadline, relay_busy, upstream_auth...) is an answer.
    if (first && first.outcome !== 'auth') setOnline(!(first.outcome === 'retry' && first.noAnswer));
    // A token worked: an award was acknowledged or refused.
    if (results.some((r) => r.outcome === 'ok' || r.outcome === 'rejected')) set('authRequired', false);
    announce(await settleBatch(outbox, deps.tabs.post, head, results), true);
  }

  /** A run of the flusher, and what its result means here. Every run goes through this. */
  async function flush(force: boolean): Promise<void> {
    const result = await flusher.run(force);
    // Callers that joined one drain get its one result: it is told once.
    if (result === last) return;
    last = result;
    if (result.outcome !== 'busy' && result.outcome !== 'closed') {
      reads.refresh(acked);
      acked.clear();
    }
    if (result.outcome === 'drained') events.emit('queue:drained', { queueSize: 0 });
    if (result.outcome === 'error') events.emit('error', { error: result.error, during: 'flush' });
    if (result.outcome === 'auth') {
      set('authRequired', true);
      deps.requestSync();
      events.emit('auth:required', { error: result.error });
    }
    if (result.outcome === 'retry' && result.retrying.length) {
      schedule(result.delayMs, true);
      deps.requestSync();
      const { attempt, delayMs } = result;
      for (const r of result.retrying)
        events.emit('award:retrying', { ...r, attempt, delayMs, persisted: deps.durability.of(r.award.idempotencyKey) });
    }
  }

  /** Unforced (after an award): a timer already set stands. Forced (the end of a backoff): it replaces it. */
  function schedule(delayMs: number, force: boolean) {
    if (timer !== undefined && !force) return;
    clearTimeout(timer);
    timer = unref(
      setTimeout(() => {
        timer = undefined;
        void flush(force);
      }, delayMs),
    );
  }

  /** Another tab's (or the worker's) message. */
  function heard(message: TabMessage) {
    if (state.closed) return;
    const settled = applyTabMessage(outbox, message);
    if (settled) announce(settled, false);
    if (message.t === 'add') {
      for (const award of message.recs) changed(pairOf(award));
      notifier.queueChanged();
    }
    if (message.t === 'points') reads.adopt(message.pair, message.summary, message.absorbed);
    if (message.t === 'dead') void recountDead();
    if (message.t === 'sync-failed') events.emit('sync:failed', message.failure);
  }

  /**
   * The dead-letter count, from the store: at start-up, after dead letters were stored (here or elsewhere) and after
   * one was discarded. Only the latest count applies: an earlier read may have started before a later letter landed.
   */
  async function recountDead() {
    const mine = ++counts;
    const count = (await outbox.deadLetters()).length;
    if (mine !== counts) return;
    state.deadLetterCount = count;
    changed();
  }

  const triggers = createTriggers(
    {
      online() {
        setOnline(true);
        void flush(true);
        reads.refresh();
      },
      offline: () => setOnline(false),
      visible() {
        void flush(true);
        reads.refresh();
      },
      // Best effort: the page may be gone before any answer. The awards stay queued; the next load resends the same keys.
      pagehide() {
        void outbox.commit();
        outbox.rescue();
        // Sent before the start-up read, it would put this tab's new awards ahead of what earlier pages left.
        const head = state.loaded ? outbox.queued().slice(0, PAGEHIDE_AWARDS) : [];
        if (head.length && transport.batch) transport.beacon(paths.batch(), { awards: head.map(toWire) });
      },
      async poll() {
        if (outbox.degraded && (await outbox.recover())) {
          set('storage', 'indexeddb');
          deps.storageChanged?.('indexeddb');
        }
        if (!triggers.visible()) return;
        void flush(false);
        reads.refresh();
      },
    },
    deps.pollIntervalMs,
  );

  // Start-up: the client's own pair from the cache (an offline start shows the last known total), what an earlier page
  // left in the outbox goes out first, and the pair is read. The outbox is read first in the store's queue of work,
  // so an award committed by now was committed after it.
  const startupRead = outbox.reload().then((awards) => {
    state.loaded = true;
    return awards;
  });
  // The dead letters are counted alongside, not after the outbox read: on a first visit each read creates its
  // database, and a creation still running once the outbox is read competed in IndexedDB with the first awards'
  // commit (a burst right after pending() took ~1.1x longer). Only the latest count applies, so the order is free.
  const startupCount = recountDead();
  void (async () => {
    if (own) await reads.restore(own);
    notifier.restored();
    for (const award of await startupRead) changed(pairOf(award));
    await startupCount;
    notifier.queueChanged();
    if (own) reads.refresh([own]);
    await flush(false);
  })();

  return {
    settling,
    durability: deps.durability,
    /** Awards this tab committed: the other tabs are told; offline, the worker is asked to deliver them (it reads the store). */
    committed(awards: PendingAward[]) {
      // A large commit goes out in parts, each in a task of its own: 10,000 records cloned in one message held the
      // page for ~8 ms right after `persisted`, and its own work (a frame, a read of the store) waited behind it.
      const tell = (from: number) => {
        deps.tabs.post({ t: 'add', recs: awards.slice(from, from + TELL_AWARDS) });
        if (from + TELL_AWARDS < awards.length) setTimeout(tell, 0, from + TELL_AWARDS);
      };
      tell(0);
      if (!state.online) deps.requestSync();
    },
    setOnline,
    settle,
    flush,
    schedule,
    heard,
    recountDead,
    degrade(reason: StorageDegradedReason, error?: unknown) {
      set('storage', 'degraded');
      deps.storageChanged?.('memory', reason);
      events.emit('storage:degraded', { reason, error });
    },
    /** Stops the timer and the browser's signals; resolves every award still waiting as closed (they stay queued). */
    stop() {
      clearTimeout(timer);
      triggers.dispose();
    },
    close() {
      for (const idempotencyKey of settling.keys()) resolve({ outcome: 'closed', status: 'closed', idempotencyKey });
      deps.durability.clear();
    },
  };
}

export type Session = ReturnType<typeof createSession>;
