// Webhooks: every acknowledged award and every reversal in the ledger, delivered at least once to each of the
// operator's endpoints, signed per Standard Webhooks. Driven from the ledger: per endpoint a cursor (the last entry
// taken in) and a bounded list of deliveries due, in a state store shared by the relays; one relay at a time holds
// the lease and delivers, so a restart (or another relay) resumes where the cursor and the list say. Retries follow
// the one backoff of every face (protocol/retry.ts), a bounded number of times, then the delivery is a dead letter
// that an operator replays (POST /admin/webhooks/replay, `quest-points webhooks replay`).
import { ConfigError } from '../../kit/errors.js';
import { backoffDelay } from '../../protocol/index.js';
import type { LogRecord, LogSink } from '../logger.js';
import type { RelayMetrics } from '../metrics.js';
import type { LedgerEntry } from './contract.js';
import type { RelayLedger } from './ledger.js';
import { resolveWebhookOptions, type WebhookLedger, type WebhookOptions, type Webhooks } from './webhooks-options.js';
import { attempt, type AttemptResult, webhookId, webhookPayload } from './webhooks-send.js';
import { createMemoryWebhookState, type PendingDelivery, type WebhookStateStore } from './webhooks-state.js';

/** Ledger entries read per page. */
const PAGE = 200;
/** Delivering these outcomes; the rest of the ledger is read past. */
const DELIVERED = new Set<LedgerEntry['outcome']>(['acknowledged', 'reversed']);
/** A cursor before any entry was taken in: `@<ms>`, read the ledger from that time (a new endpoint gets no history). */
const fromTime = (ms: number) => `@${ms}`;

/** The deliverer of RelayOptions `webhooks` over a ledger. Throws a ConfigError for a bad option (never naming a secret). */
export function createWebhooks(options: WebhookOptions, ledger: WebhookLedger, log: LogSink): Webhooks {
  const { signers, maxAttempts, baseMs, maxMs, timeoutMs, maxPending, concurrency, pollMs, leaseMs } = resolveWebhookOptions(options);
  const state = options.state ?? createMemoryWebhookState();
  const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const random = options.random ?? Math.random;
  const count = options.count ?? (() => {});
  const owner = crypto.randomUUID();
  const inFlight = new Map<string, Promise<void>>();

  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<void> | undefined;
  let again = false;
  let unsubscribe: (() => void) | undefined;
  let lastWarning = 0;

  const say = (level: LogRecord['level'], msg: string) => log({ time: new Date().toISOString(), level, msg });
  /** A failing ledger or state store: said at most once per 10 s, and the next round tries again. */
  const warn = (what: string, error: unknown) => {
    const now = Date.now();
    if (now - lastWarning < 10_000) return;
    lastWarning = now;
    say('warn', `webhooks: ${what} failed (${error instanceof Error ? error.name : 'error'}); trying again`);
  };

  /** Ledger entries after the endpoint's cursor, into its pending list, while it has room. */
  const takeIn = async (url: string, now: number) => {
    for (let page = 0; page < 10; page++) {
      const room = maxPending - (await state.pendingCount(url));
      if (room <= 0) return;
      const cursor = await state.cursor(url);
      if (cursor === undefined) {
        await state.intake(url, [], fromTime(now));
        continue;
      }
      const limit = Math.min(room, PAGE);
      const { entries, next } = await ledger.read(cursor.startsWith('@') ? { from: Number(cursor.slice(1)), limit } : { after: cursor, limit });
      const last = entries.at(-1);
      if (!last) return;
      const deliveries = entries
        .filter((entry) => DELIVERED.has(entry.outcome))
        .map((entry): PendingDelivery => ({ endpoint: url, id: webhookId(entry), entry, attempts: 0, dueAt: now }));
      await state.intake(url, deliveries, last.id);
      if (next === undefined) return;
    }
  };

  /** One attempt of one delivery, and what its answer does to the delivery. */
  const send = async (delivery: PendingDelivery) => {
    const signer = signers.get(delivery.endpoint);
    const attempts = delivery.attempts + 1;
    const result: AttemptResult = signer
      ? await attempt(fetcher, signer, delivery.id, JSON.stringify(webhookPayload(delivery.entry)), timeoutMs)
      : { outcome: 'failed', error: 'endpoint no longer configured' };
    const shown = signer?.shown ?? 'a removed endpoint';
    if (result.outcome === 'delivered') {
      count('delivered');
      return state.done(delivery.endpoint, delivery.id);
    }
    if (result.outcome === 'gone') {
      count('gone');
      say('error', `webhooks: ${shown} answered 410 Gone: nothing more is sent to it until a replay`);
      await state.markGone(delivery.endpoint);
      return state.bury({ ...delivery, attempts, lastError: 'HTTP 410', deadAt: Date.now() });
    }
    if (!signer || attempts >= maxAttempts) {
      count('dead');
      say('warn', `webhooks: ${delivery.id} to ${shown} is a dead letter after ${attempts} attempts (${result.error})`);
      return state.bury({ ...delivery, attempts, lastError: result.error, deadAt: Date.now() });
    }
    count('failed');
    const delay = backoffDelay(attempts - 1, baseMs, maxMs, result.afterMs ?? 0, random);
    await state.reschedule({ ...delivery, attempts, lastError: result.error, dueAt: Date.now() + delay });
  };

  const start = (delivery: PendingDelivery) => {
    const key = `${delivery.endpoint}\n${delivery.id}`;
    const sent = send(delivery)
      .catch((error) => warn('recording a delivery', error))
      .finally(() => {
        inFlight.delete(key);
        wake();
      });
    inFlight.set(key, sent);
  };

  /** Renew the lease, take in what the ledger has, start the attempts due; returns when to look again. */
  const once = async (): Promise<number> => {
    const now = Date.now();
    if (!(await state.lease(owner, leaseMs))) return pollMs;
    for (const url of signers.keys()) {
      if (!(await state.isGone(url))) await takeIn(url, now);
    }
    const room = concurrency - inFlight.size;
    const { due, nextAt } = await state.due(now, room + inFlight.size);
    const gone = new Map<string, boolean>();
    for (const delivery of due) {
      if (inFlight.size >= concurrency) break;
      if (inFlight.has(`${delivery.endpoint}\n${delivery.id}`)) continue;
      if (!gone.has(delivery.endpoint)) gone.set(delivery.endpoint, await state.isGone(delivery.endpoint));
      if (!gone.get(delivery.endpoint)) start(delivery);
      // A gone endpoint's deliveries leave the due list for the dead letters (replay sends them), unsent: left there,
      // they would fill every round's batch and starve the other endpoints.
      else await state.bury({ ...delivery, lastError: 'endpoint gone (410)', deadAt: now });
    }
    return nextAt === undefined ? pollMs : Math.max(0, Math.min(pollMs, nextAt - Date.now()));
  };

  const round = (): Promise<void> => {
    if (current !== undefined) {
      again = true;
      return current;
    }
    clearTimeout(timer);
    current = (async () => {
      let wait = pollMs;
      try {
        do {
          again = false;
          wait = await once();
        } while (again && running);
      } catch (error) {
        warn('a round', error);
      } finally {
        current = undefined;
        if (running) schedule(wait);
      }
    })();
    return current;
  };

  const schedule = (ms: number) => {
    clearTimeout(timer);
    try {
      timer = setTimeout(() => void round(), ms);
    } catch {
      // A runtime without background timers (Cloudflare Workers' global scope): said once, nothing delivered here.
      running = false;
      return say('error', 'webhooks: this runtime has no background timers: deliver from a Node, Bun or Deno relay');
    }
    // A deliverer alone never keeps a Node process alive (the relay's server does).
    (timer as { unref?: () => void }).unref?.();
  };

  function wake() {
    if (running) void round();
  }

  return {
    start() {
      if (running) return;
      running = true;
      unsubscribe = ledger.subscribe?.(() => wake());
      void round();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      unsubscribe?.();
      await current;
      await Promise.all(inFlight.values());
      await state.release(owner).catch(() => {});
    },
    round,
    dead: (limit = 1000) => state.dead(limit),
    async replay(selection) {
      const revived = await state.revive(selection, Date.now());
      wake();
      return revived;
    },
    get inFlight() {
      return inFlight.size;
    },
  };
}

/**
 * The deliverer of RelayOptions `webhooks`, started: over the relay's ledger (a ConfigError without one), its state in
 * `options.state`, else the rate-limit store's (createRedisCounterStore's `webhooks`), else memory.
 */
export function relayWebhooks(
  options: WebhookOptions,
  ledger: RelayLedger | undefined,
  shared: unknown,
  log: LogSink,
  metrics: RelayMetrics,
): Webhooks {
  if (!ledger) {
    throw new ConfigError(
      'webhooks',
      'invalid',
      'webhooks are delivered from the ledger: turn it on (RelayOptions ledger; startRelay and the CLI do by default)',
    );
  }
  const state = options.state ?? (shared as { webhooks?: WebhookStateStore } | undefined)?.webhooks;
  const count = metrics.webhook;
  const webhooks = createWebhooks(
    { ...options, ...(state ? { state } : {}), ...(count && !options.count ? { count } : {}) },
    { read: (query) => ledger.store.read(query), subscribe: ledger.subscribe },
    log,
  );
  webhooks.start();
  return webhooks;
}

export type { WebhookLedger, WebhookOptions, Webhooks } from './webhooks-options.js';
export { webhookId, webhookPayload, type WebhookEndpoint, type WebhookEventType, type WebhookPayload } from './webhooks-send.js';
export {
  createMemoryWebhookState,
  DEFAULT_MAX_DEAD,
  type DeadDelivery,
  type MemoryWebhookStateOptions,
  type PendingDelivery,
  type ReplaySelection,
  type WebhookStateStore,
} from './webhooks-state.js';
