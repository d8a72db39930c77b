// What moves the leaderboard: the ledger's acknowledged awards and reversals, after they are stored (one subscription,
// so the award pipeline is untouched). A replay from the idempotency record is not in the ledger (decision.ts), and
// an award's key is counted once by the store (an acknowledgement recorded twice, e.g. with the record off and the
// service's own idempotency answering a resend, moves the board once). A store that fails loses those moves, never an
// award's answer: said in the log at most once per 10 s. Awards through other channels are not seen here: they
// reach the board by reconciliation with the service (reconcile.ts, `reconcile`, off unless configured).
import { ConfigError } from '../../kit/errors.js';
import type { RelayLedger } from '../economy/ledger.js';
import type { LogSink } from '../logger.js';
import type { Upstream } from '../upstream.js';
import { type LeaderboardReconcileOptions, type Reconciler, startReconciler } from './reconcile.js';
import type { LeaderboardStore } from './store.js';

/** RelayOptions `leaderboard`: where the boards live and how players are named. */
export interface LeaderboardOptions {
  /** createMemoryLeaderboardStore (one instance) or createRedisCounterStore(...).leaderboard (shared). */
  store: LeaderboardStore;
  /**
   * The name shown for a player (their serviceUserId), e.g. a display name from your own records. Return undefined
   * for the default: a stable pseudonym (`Player 1a2b3c`) derived with the relay's key secret, not reversible.
   */
  name?: (player: string) => string | undefined;
  /**
   * Set the boards to the service's totals in the background (one relay at a time), so awards made through other
   * channels count. Off unless configured. docs/leaderboard.md "Reconciliation".
   */
  reconcile?: LeaderboardReconcileOptions | false;
}

/** The leaderboard as the relay holds it (RelayRuntime `leaderboard`). */
export interface RelayLeaderboard extends LeaderboardOptions {
  /** Stops following the ledger (and reconciling). */
  stop(): void;
  /** The reconciliation, when `reconcile` is configured. */
  reconciler?: Reconciler;
  /** Resolves once every move handed to the store so far is done (tests, shutdown). */
  settled(): Promise<void>;
}

const WARN_EVERY_MS = 10_000;

/** Follow the ledger into the store (createRelay calls it with RelayOptions `leaderboard`). */
export function createRelayLeaderboard(
  options: LeaderboardOptions,
  ledger: RelayLedger | undefined,
  log: LogSink,
  upstream?: Upstream,
): RelayLeaderboard {
  const { store } = options;
  if (!store || typeof store.add !== 'function' || typeof store.top !== 'function') {
    throw new ConfigError(
      'leaderboard',
      'invalid',
      'leaderboard.store must be a LeaderboardStore: createMemoryLeaderboardStore() or createRedisCounterStore(...).leaderboard',
    );
  }
  if (!ledger) throw new ConfigError('leaderboard', 'invalid', 'the leaderboard follows the ledger: turn on RelayOptions ledger too');
  const moving = new Set<Promise<unknown>>();
  let lastWarning = 0;
  const failed = (error: unknown) => {
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log({ time: new Date(now).toISOString(), level: 'warn', msg: `leaderboard: a move was lost (${reason}); awards are answered as usual` });
  };
  const reconciler = options.reconcile && upstream ? startReconciler(options.reconcile, store, upstream, log) : undefined;
  const unsubscribe = ledger.subscribe((entries) => {
    for (const entry of entries) {
      if (entry.outcome !== 'acknowledged' && entry.outcome !== 'reversed') continue;
      const move = store.add(entry.questId, entry.serviceUserId, entry.eventPoints, entry.key).catch(failed);
      moving.add(move);
      void move.finally(() => moving.delete(move));
    }
  });
  return {
    ...options,
    ...(reconciler ? { reconciler } : {}),
    stop() {
      unsubscribe();
      void reconciler?.stop();
    },
    async settled() {
      await ledger.flush();
      while (moving.size) await Promise.all([...moving]);
    },
  };
}
