// The relay's ledger: every decision of the award pipeline (and every operator action) appended to a LedgerStore,
// fire-and-forget. A decision is queued and the award answered at once; the queue is appended in one call per tick
// (one round trip to Redis for every award decided in that tick). A store that fails loses those entries, never an
// award's answer: it is counted in the metrics and said in the log at most once per 10 s.
import { ConfigError } from '../../kit/errors.js';
import type { LogSink } from '../logger.js';
import type { RelayMetrics } from '../metrics.js';
import type { LedgerDraft, LedgerEntry, LedgerStore } from './contract.js';
import { DEFAULT_LEDGER_RETENTION_MS } from './query.js';

/** RelayOptions `ledger`: where the ledger lives and how long it keeps an entry. */
export interface LedgerOptions {
  /** createMemoryLedgerStore (one instance), createRedisCounterStore(...).ledger, createDurableObjectLedgerStore. */
  store: LedgerStore;
  /**
   * Entries older than this are trimmed; default DEFAULT_LEDGER_RETENTION_MS (30 days). Memory and Durable Object
   * stores take their own (createMemoryLedgerStore's `retentionMs`); a store with `trim` is trimmed with this hourly.
   */
  retentionMs?: number;
}

/** Told each batch of entries once they are in the store, with their ids (webhooks deliver `acknowledged` and `reversed`). */
export type LedgerListener = (entries: readonly LedgerEntry[]) => void;

/** The ledger as the relay holds it (RelayRuntime `ledger`). */
export interface RelayLedger {
  /** Queue one decision: appended with the others of this tick. Never throws, never waits. */
  record(draft: LedgerDraft): void;
  /** Listen to the entries appended from now on (after they are stored); returns the unsubscribe. */
  subscribe(listener: LedgerListener): () => void;
  /** Resolves once every entry queued so far is appended (or failed): for shutdown and tests. */
  flush(): Promise<void>;
  store: LedgerStore;
  retentionMs: number;
}

/** Most entries in one append; more in one tick go in several. */
const MAX_BATCH = 500;
/** Most entries waiting for a store that does not keep up; past it, decisions are dropped (and counted). */
const MAX_QUEUED = 20_000;
const WARN_EVERY_MS = 10_000;
const TRIM_EVERY_MS = 60 * 60 * 1000;

/** The relay's ledger over a store (createRelay calls it with RelayOptions `ledger`). */
export function createRelayLedger(options: LedgerOptions, log: LogSink, metrics: RelayMetrics): RelayLedger {
  const { store } = options;
  if (!store || typeof store.append !== 'function' || typeof store.read !== 'function') {
    throw new ConfigError(
      'ledger',
      'invalid',
      'ledger.store must be a LedgerStore (append, read): createMemoryLedgerStore() or createRedisCounterStore(...).ledger',
    );
  }
  const retentionMs = options.retentionMs ?? DEFAULT_LEDGER_RETENTION_MS;
  if (!(retentionMs > 0))
    throw new ConfigError('ledger.retentionMs', 'invalid', `ledger.retentionMs must be a positive number of ms, got ${retentionMs}`);
  const listeners = new Set<LedgerListener>();
  let queued: LedgerDraft[] = [];
  let scheduled = false;
  const appending = new Set<Promise<void>>();
  let lastWarning = 0;
  let lastTrim = 0;

  const failed = (count: number, error: unknown, what: string) => {
    metrics.ledger?.('failed', count);
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log({ time: new Date(now).toISOString(), level: 'warn', msg: `ledger: ${what} (${reason}); awards are answered as usual` });
  };
  const append = (batch: LedgerDraft[]) => {
    const done = store.append(batch).then(
      (ids) => {
        metrics.ledger?.('appended', batch.length);
        const entries = batch.map((draft, i) => ({ ...draft, id: ids[i] as string }));
        for (const listener of listeners) {
          try {
            listener(entries);
          } catch (error) {
            failed(0, error, 'a ledger listener threw');
          }
        }
      },
      (error) => failed(batch.length, error, `${batch.length} entries not appended`),
    );
    appending.add(done);
    void done.finally(() => appending.delete(done));
  };
  const drain = () => {
    scheduled = false;
    const batch = queued;
    queued = [];
    for (let at = 0; at < batch.length; at += MAX_BATCH) append(batch.slice(at, at + MAX_BATCH));
    const now = Date.now();
    if (store.trim && now - lastTrim >= TRIM_EVERY_MS) {
      lastTrim = now;
      store.trim(now - retentionMs).catch((error) => failed(0, error, 'trimming failed'));
    }
  };

  return {
    record(draft) {
      if (queued.length >= MAX_QUEUED) return failed(1, new Error('queue full'), 'the store does not keep up');
      queued.push(draft);
      if (scheduled) return;
      scheduled = true;
      // A timer, not a microtask: the decisions of every request handled in this turn of the event loop go together.
      setTimeout(drain, 0);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async flush() {
      if (scheduled) drain();
      while (appending.size) await Promise.all([...appending]);
    },
    store,
    retentionMs,
  };
}
