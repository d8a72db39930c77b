import { SYNC_TAG } from './page.js';
import { DEFAULTS, storageLayout } from '../client/defaults.js';
import { QuestPointsError } from '../client/errors.js';
import { createFlusher, type FlushResult } from '../client/flusher.js';
import { leaseLock } from '../client/lease.js';
import { createFlushLock, type Lease } from '../client/lock.js';
import { createOutbox } from '../client/outbox.js';
import { backoffDelay, retryAfterMs } from '../client/retry.js';
import { applyTabMessage, settleBatch } from '../client/settle.js';
import { reporter } from '../client/format.js';
import { idbKV } from '../client/store.js';
import { createTabs } from '../client/tabs.js';
import { createHttp } from '../client/http.js';
import { createTransport } from '../client/transport.js';
import type { DeadLetter, PendingAward, SyncFailure } from '../client/types.js';
import { statusVerdict } from '../protocol/status.js';
import type { QuestPointsSync, QuestPointsSyncOptions, SyncEventLike, WorkerScope } from './options.js';
import { readToken } from './token.js';

export { SYNC_TAG };
export { backgroundSync, registerWorker, type WorkerRegistration } from './page.js';
export { readToken, tokenFrom } from './token.js';
export type { QuestPointsSync, QuestPointsSyncOptions, SyncEventLike, WorkerScope } from './options.js';

const config = (message: string) => new QuestPointsError(message, 'config');

function nonEmpty(name: string, value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) throw config(`${name} must be a non-empty string`);
  return value;
}

/**
 * Delivers the pages' outbox from a service worker: on the `sync` and `periodicsync` events of `tag` it drains the
 * same IndexedDB outbox with the pages' modules (same keys, same status policy, dead letters kept), under the same
 * Web Lock (one sender at a time, pages and worker together), and tells the pages what it settled on their
 * BroadcastChannel. Call it while the worker script is first evaluated (event listeners must be added then).
 */
export function registerQuestPointsSync(options: QuestPointsSyncOptions, scope: WorkerScope = globalThis as unknown as WorkerScope): QuestPointsSync {
  const relayUrl = nonEmpty('relayUrl', options?.relayUrl);
  const tokenUrl = new URL(nonEmpty('tokenUrl', options.tokenUrl), scope.location.href);
  // The fetch carries the player's cookies: only to this origin.
  if (tokenUrl.origin !== scope.location.origin) throw config(`tokenUrl must be same-origin (${scope.location.origin}), not ${tokenUrl.origin}`);
  const layout = storageLayout(nonEmpty('storageName', options.storageName ?? DEFAULTS.storageName));
  const tag = nonEmpty('tag', options.tag ?? SYNC_TAG);
  const budgetMs = options.budgetMs ?? DEFAULTS.budgetMs;
  if (!(budgetMs > 0)) throw config('budgetMs must be a positive number');
  const backoff = { ...DEFAULTS.backoff, ...options.backoff };

  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  /**
   * Set when the last token fetch failed in a way that waiting can mend: no answer (offline, timeout) or a status the
   * protocol's policy retries (408, 429, 5xx), with its Retry-After. Such a failure is retried within the event like
   * a send: failing the event would leave the awards to the browser's next attempt, minutes later, though the login
   * route may be back in seconds. Anything else (401/403: no session; another answer) fails the event.
   */
  let tokenWait: { afterMs: number } | undefined;
  /** Consecutive token fetches that must be waited for: the backoff's attempt. */
  let tokenAttempt = 0;
  // The worker decides itself what a token failure means (tokenWait, below): every one reaches the flusher as 'auth'.
  const getToken = () =>
    fetchToken().catch((error: QuestPointsError) => {
      throw new QuestPointsError(error.message, 'auth', error.status);
    });
  const fetchToken = async () => {
    tokenWait = { afterMs: 0 };
    let response: Response;
    try {
      response = await fetch(tokenUrl, { credentials: 'same-origin', cache: 'no-store', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const timeout = (error as Error)?.name === 'TimeoutError';
      throw new QuestPointsError(timeout ? `tokenUrl: no answer within ${timeoutMs} ms` : 'tokenUrl: network error', timeout ? 'timeout' : 'network');
    }
    tokenWait = statusVerdict(response.status) === 'retry' ? { afterMs: retryAfterMs(response.headers.get('retry-after')) ?? 0 } : undefined;
    const token = await readToken(response);
    tokenAttempt = 0;
    return token;
  };
  const transport = createTransport({ relayUrl, getToken, timeoutMs }, async () => ({ createHttp }));
  let storageError: unknown;
  // Records of a newer stored format (a newer page's, format.ts) stay in the store for it; the console hears once.
  const newer = reporter();
  const outbox = createOutbox({
    queue: idbKV<PendingAward>(layout.outbox, undefined, newer),
    dead: idbKV<DeadLetter>(layout.dead, undefined, newer),
    degraded(_reason, error) {
      storageError = error;
    },
  });
  // Kept current like a tab's mirror: a drain's later batches come from it, not from the store.
  const tabs = createTabs(layout.channel, true, (message) => applyTabMessage(outbox, message));

  let closed = false;
  const closedError = () => new QuestPointsError(`closed with ${outbox.size()} award(s) queued`, 'closed');
  /** The last failure a drain waited on: the reason an event given up at the end of its budget gives. */
  let lastFault = '';
  const flusher = createFlusher({
    outbox,
    transport,
    // Waits for a page's drain rather than leaving the awards to it: the page may be closing.
    lock: createFlushLock(layout.channel, { store: idbKV<Lease>(layout.cache, undefined, newer), load: async () => ({ leaseLock }) }, budgetMs),
    backoff,
    authPauseMs: budgetMs,
    // The worker serves whoever is signed in (its tokenUrl): another player's awards, refused as such, wait for
    // theirs, and the token is asked for again (the player may have switched).
    invalidateToken: transport.invalidate,
    // The pages hear of it once it is out of the store: a page's reload() cannot bring it back meanwhile.
    settle: async (head, results) => (await settleBatch(outbox, tabs.post, head, results)).told,
  });

  /** How long until the next attempt after this run, or undefined when there is none to make (drained, or a page sends). */
  function retryAfter(result: FlushResult): number | undefined {
    if (result.outcome === 'error') throw result.error;
    // Stopped by close() mid-drain: the awards left are not delivered, so the event must not say they were.
    if (result.outcome === 'closed') throw closedError();
    if (outbox.degraded) throw storageError;
    // A token URL that got no answer or a status the policy retries (see getToken): retried within the budget like a
    // relay failure. Failing the event would leave the awards to the browser's next attempt, minutes later.
    if (result.outcome === 'auth') {
      if (!tokenWait) throw result.error;
      lastFault = (result.error as Error)?.message ?? String(result.error);
      return backoffDelay(tokenAttempt++, backoff.baseMs, backoff.maxMs, tokenWait.afterMs);
    }
    const first = result.outcome === 'retry' ? result.retrying[0] : undefined;
    if (first) lastFault = `the relay: ${first.status === undefined ? first.reason : `HTTP ${first.status}`}`;
    // A refusal about the deployment, not the awards (protocol/status.ts answerHandling): never a dead letter here
    // either; retried within the budget like any retry, and named if the event is given up.
    if (result.outcome === 'retry' && result.refused)
      lastFault = `the deployment refused the queue: HTTP ${result.refused.status} ${result.refused.message}`;
    return result.outcome === 'retry' ? result.delayMs : undefined;
  }

  /** One per event (or deliver() call) waiting on the drain: each has its own budget. */
  interface Waiter {
    deadline: number;
    resolve(): void;
    reject(error: unknown): void;
  }
  const waiters = new Set<Waiter>();
  let draining = false;

  /**
   * An event given up (its promise rejects, so the browser fires it again later): the worker's console and the open
   * pages (the SDK's `sync:failed`) hear why; nothing else would tell, with every tab closed.
   */
  const giveUp = (waiter: Waiter, error: unknown, reason: SyncFailure['reason']) => {
    const failure: SyncFailure = { reason, message: (error as Error)?.message ?? String(error), queueSize: outbox.size() };
    console.warn(
      `[quest-points/sw] sync event given up (${reason}): ${failure.message}. ${failure.queueSize} award(s) stay queued for the browser's next attempt and the next page.`,
    );
    tabs.post({ t: 'sync-failed', failure });
    waiter.reject(error);
  };

  const answerWaiters = (error?: unknown) => {
    const reason = error === storageError ? 'storage' : (error as QuestPointsError)?.code === 'auth' ? 'auth' : 'error';
    for (const waiter of waiters) {
      if (error === undefined) waiter.resolve();
      else giveUp(waiter, error, reason);
    }
    waiters.clear();
  };

  /**
   * One drain for every waiter: it goes on while any of them has budget left. A waiter whose budget would run out
   * before the next attempt fails alone (its event fails, so the browser fires it again later); an event that came
   * during an earlier one's drain joins it without inheriting what is left of the earlier budget.
   */
  async function drain(): Promise<void> {
    draining = true;
    try {
      if (outbox.degraded && !(await outbox.recover())) throw storageError;
      lastFault = '';
      for (;;) {
        // This loop waits between attempts: the events' waitUntil must cover the wait.
        const retryMs = retryAfter(await flusher.run(true));
        // Drained, or a page holds the lock and sends them itself.
        if (retryMs === undefined) return answerWaiters();
        // Closed with awards left: the events fail (the browser fires them again, for the next worker or page).
        if (closed) throw closedError();
        const next = Date.now() + retryMs;
        for (const waiter of waiters) {
          if (next <= waiter.deadline) continue;
          waiters.delete(waiter);
          giveUp(
            waiter,
            new QuestPointsError(`awards still queued after ${budgetMs} ms (last: ${lastFault}): left for the next sync`, 'network'),
            'budget',
          );
        }
        if (!waiters.size) return;
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    } catch (error) {
      answerWaiters(error);
    } finally {
      draining = false;
      // Someone came in as this drain was ending: drain again for them.
      if (waiters.size) void drain();
    }
  }

  const deliver = () =>
    new Promise<void>((resolve, reject) => {
      waiters.add({ deadline: Date.now() + budgetMs, resolve, reject });
      if (!draining) void drain();
    });

  const onSync = (event: SyncEventLike) => {
    if (event.tag === tag) event.waitUntil(deliver());
  };
  scope.addEventListener('sync', onSync);
  scope.addEventListener('periodicsync', onSync);

  return {
    deliver,
    close() {
      closed = true;
      flusher.stop();
      tabs.close();
      scope.removeEventListener('sync', onSync);
      scope.removeEventListener('periodicsync', onSync);
    },
  };
}
