// Reconciliation with the service: awards through other channels (the operator's back office, another integration)
// never pass the relay, so in the background one relay at a time (a lease in the store, per quest) walks the
// service's enrolled-users list page by page and sets each player's score to the service's total (GET
// enrolled-users/{id}: `currentPoints`). Calls are bounded twice: at most `concurrency` at once, and at most
// `callsPerSecond` started. The offset of the next page is kept in the store after each page, so a relay that stops
// (or loses the lease) leaves a cursor the next holder resumes from. Players are keyed as the feed keys them: by
// serviceUserId (for a player token, its sub: access.ts).
import { ConfigError } from '../../kit/errors.js';
import { PAGE_LIMIT_MAX, paths } from '../../protocol/index.js';
import type { LogSink } from '../logger.js';
import type { Upstream } from '../upstream.js';
import type { LeaderboardReconcileStore, LeaderboardStore } from './store.js';

/** LeaderboardOptions `reconcile`: how often and how fast the boards are set to the service's totals. */
export interface LeaderboardReconcileOptions {
  /** The quests to reconcile (the service has no list of quests). */
  quests: readonly string[];
  /** Pause between the end of one pass and the start of the next; default 600,000 (10 minutes). */
  everyMs?: number;
  /** Most service calls in flight at once; default 4. */
  concurrency?: number;
  /** Most service calls started per second (the rate budget); default 20. */
  callsPerSecond?: number;
}

/** A pass's figures (RelayLeaderboard `reconciler`). */
export interface ReconcileReport {
  /** Players whose score was set. */
  players: number;
  /** Players left as they were: the feed moved their score while the service was asked (the next pass sets them). */
  raced: number;
  /** Service calls made (pages + totals). */
  calls: number;
  /** True when this relay did not hold the quest's lease (another relay reconciles it). */
  skipped: boolean;
  /** True when the pass reached the end of the list (false: stopped, failed or lost the lease; the cursor stays). */
  complete: boolean;
}

/** The running reconciliation (RelayLeaderboard `reconciler`). */
export interface Reconciler {
  /** One pass over one quest now (resumes from the store's cursor). */
  pass(questId: string): Promise<ReconcileReport>;
  /** Stops the timer and any pass at its next call; releases held leases. */
  stop(): Promise<void>;
}

const DEFAULTS = { everyMs: 600_000, concurrency: 4, callsPerSecond: 20 } as const;

/** Spaces call starts `1000 / perSecond` ms apart (a budget shared by every call of this relay's passes). */
function rateBudget(perSecond: number) {
  const gap = 1000 / perSecond;
  let next = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now + 1) await new Promise((resolve) => setTimeout(resolve, at - now));
  };
}

const isReconcilable = (store: LeaderboardStore): store is LeaderboardStore & LeaderboardReconcileStore =>
  ['score', 'set', 'lease', 'release', 'cursor', 'saveCursor'].every((name) => typeof store[name as keyof LeaderboardStore] === 'function');

/** Start reconciling (createRelayLeaderboard calls it with LeaderboardOptions `reconcile`). */
export function startReconciler(options: LeaderboardReconcileOptions, board: LeaderboardStore, upstream: Upstream, log: LogSink): Reconciler {
  if (!isReconcilable(board)) throw new ConfigError('leaderboard', 'invalid', 'leaderboard.reconcile needs a store with set, lease and cursor');
  if (!Array.isArray(options.quests)) throw new ConfigError('leaderboard', 'invalid', 'leaderboard.reconcile.quests must be an array of quest ids');
  const store: LeaderboardReconcileStore = board;
  const everyMs = Math.max(1, options.everyMs ?? DEFAULTS.everyMs);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULTS.concurrency));
  const budget = rateBudget(Math.max(0.001, options.callsPerSecond ?? DEFAULTS.callsPerSecond));
  // The lease outlives a page at the budget (a page is up to PAGE_LIMIT_MAX + 1 calls) with room to spare.
  const leaseMs = Math.max(30_000, ((PAGE_LIMIT_MAX + 1) * 3000) / Math.max(0.001, options.callsPerSecond ?? DEFAULTS.callsPerSecond));
  const owner = `relay-${crypto.randomUUID()}`;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const warn = (msg: string) => log({ time: new Date().toISOString(), level: 'warn', msg: `leaderboard reconcile: ${msg}` });

  const call = async (path: string) => {
    await budget();
    const result = await upstream.send({ method: 'GET', path, requestId: `reconcile-${crypto.randomUUID()}` }, { retry: true });
    if (result.kind !== 'response' || result.status !== 200) {
      throw new Error(result.kind === 'response' ? `the service answered ${result.status}` : `${result.reason}: ${result.message}`);
    }
    return (result.body as { data?: unknown; pagination?: { nextPage?: unknown } }) ?? {};
  };

  async function pass(questId: string): Promise<ReconcileReport> {
    const report: ReconcileReport = { players: 0, raced: 0, calls: 0, skipped: false, complete: false };
    if (!(await store.lease(questId, owner, leaseMs))) return { ...report, skipped: true };
    try {
      let offset = (await store.cursor(questId)) ?? 0;
      while (!stopped) {
        report.calls++;
        const page = await call(paths.enrolledUsers(questId, { limit: PAGE_LIMIT_MAX, offset }));
        const users = Array.isArray(page.data) ? (page.data as { serviceUserId?: unknown }[]) : [];
        const ids = users.map((user) => user.serviceUserId).filter((id): id is string => typeof id === 'string');
        // `concurrency` workers take the page's players in turn; e-mails in the list are read by no one.
        let next = 0;
        const worker = async () => {
          while (!stopped && next < ids.length) {
            const id = ids[next++] as string;
            // Read before the service is asked: an award the feed counts meanwhile must not be overwritten by an older total.
            const before = (await store.score(questId, id)) ?? null;
            report.calls++;
            const total = (await call(paths.enrollment(questId, id))).data as { currentPoints?: unknown } | undefined;
            if (typeof total?.currentPoints !== 'number') throw new Error('the service answered a total that is not a number');
            if (await store.set(questId, id, total.currentPoints, before)) report.players++;
            else report.raced++;
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
        if (stopped) break;
        offset += users.length;
        // Renewed after each page, before the cursor moves: a relay that lost it (paused past the TTL) stops without
        // writing the cursor (the new holder's), and the holder goes on from its own.
        if (!(await store.lease(questId, owner, leaseMs))) break;
        const done = !page.pagination?.nextPage || users.length === 0;
        await store.saveCursor(questId, done ? undefined : offset);
        if (done) {
          report.complete = true;
          break;
        }
      }
    } catch (error) {
      warn(`${questId}: stopped (${error instanceof Error ? error.message : String(error)}); the next pass resumes from the cursor`);
    } finally {
      await store.release(questId, owner).catch(() => undefined);
    }
    return report;
  }

  const loop = async () => {
    for (const questId of options.quests) if (!stopped) await pass(questId).catch(() => undefined);
    if (stopped) return;
    timer = setTimeout(loop, everyMs);
    (timer as { unref?: () => void }).unref?.();
  };
  timer = setTimeout(loop, 0);
  (timer as { unref?: () => void }).unref?.();
  return {
    pass,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(options.quests.map((questId) => store.release(questId, owner).catch(() => undefined)));
    },
  };
}
