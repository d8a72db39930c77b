// The options of RelayOptions `webhooks`, checked once at startup, and the deliverer's shape (webhooks.ts runs it).
import { ConfigError } from '../../kit/errors.js';
import type { WebhookResult } from '../metrics.js';
import type { LedgerEntry, LedgerStore } from './contract.js';
import { signerOf, type Signer, type WebhookEndpoint } from './webhooks-send.js';
import type { DeadDelivery, ReplaySelection, WebhookStateStore } from './webhooks-state.js';

/** RelayOptions `webhooks`: where and how the ledger's acknowledged and reversed awards are delivered. */
export interface WebhookOptions {
  /** The operator's endpoints; each receives every event. */
  endpoints: WebhookEndpoint[];
  /** Attempts per delivery before it is a dead letter; default 15. */
  attempts?: number;
  /**
   * Backoff between attempts (full jitter, protocol's backoffDelay): attempt n waits up to min(maxMs, baseMs * 2^n);
   * default { baseMs: 10 s, maxMs: 12 h }: 15 attempts span about 17 h on average, 35 h at most. A receiver's
   * Retry-After (429, 503) is honoured up to maxMs.
   */
  retry?: { baseMs: number; maxMs: number };
  /** One attempt is answered within this or counted failed; default 10 s. */
  timeoutMs?: number;
  /** Where cursors, pending deliveries, dead letters and the lease live; default this process's memory. */
  state?: WebhookStateStore;
  /** Deliveries waiting per endpoint at most; default 10 000. Beyond it the ledger is read no further until some are done. */
  maxPending?: number;
  /** Attempts in flight at once, all endpoints together; default 8. */
  concurrency?: number;
  /** How often the ledger is read when nothing wakes the deliverer; default 1 s. */
  pollMs?: number;
  /** The lease's life: a relay that stops renewing it (crashed) is replaced after this; default 30 s. */
  leaseMs?: number;
  /** The HTTP client; default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Jitter's source, in [0, 1); default Math.random (tests pin it). */
  random?: () => number;
  /** Told each attempt's result (the relay's metrics: qp_relay_webhook_attempts_total). */
  count?: (result: WebhookResult) => void;
}

/** What the deliverer reads: the ledger's pages, and optionally a wake-up when entries are appended. */
export interface WebhookLedger {
  /** One page of the ledger (LedgerStore `read`). */
  read: LedgerStore['read'];
  /** Called on each append (or batch of appends): the deliverer reads on at once instead of at its next poll. */
  subscribe?(listener: (entries: readonly LedgerEntry[]) => void): () => void;
}

/** The running deliverer (runtime.webhooks): its admin operations and its life. */
export interface Webhooks {
  /** Start delivering (reads the ledger from now on the first start, from the cursor after). */
  start(): void;
  /** Stop: no new attempt; resolves once attempts in flight are answered (or timed out) and the lease is let go. */
  stop(): Promise<void>;
  /** One round now: renew the lease, read the ledger, start the attempts due. Resolves when the round is done. */
  round(): Promise<void>;
  /** Dead letters, oldest first. */
  dead(limit?: number): Promise<DeadDelivery[]>;
  /** Send dead letters again (from their first attempt); resolves with how many. */
  replay(selection: ReplaySelection): Promise<number>;
  /** Attempts in flight now. */
  readonly inFlight: number;
}

/** The defaults of WebhookOptions. */
export const WEBHOOK_DEFAULTS = {
  attempts: 15,
  baseMs: 10_000,
  maxMs: 12 * 3_600_000,
  timeoutMs: 10_000,
  maxPending: 10_000,
  concurrency: 8,
  pollMs: 1000,
  leaseMs: 30_000,
};
const positive = (name: string, value: number | undefined, fallback: number): number => {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new ConfigError(`webhooks.${name}`, 'invalid', `webhooks.${name} must be a positive number, got ${v}`);
  return v;
};

/** The options checked (a ConfigError names the one at fault, never a secret), the endpoints ready to sign. */
export function resolveWebhookOptions(options: WebhookOptions) {
  if (!Array.isArray(options.endpoints) || options.endpoints.length === 0) {
    throw new ConfigError('webhooks.endpoints', 'invalid', 'webhooks.endpoints must list at least one { url, secret }');
  }
  const D = WEBHOOK_DEFAULTS;
  return {
    signers: new Map<string, Signer>(options.endpoints.map((endpoint, i) => [endpoint.url, signerOf(endpoint, i)])),
    maxAttempts: Math.floor(positive('attempts', options.attempts, D.attempts)),
    baseMs: positive('retry.baseMs', options.retry?.baseMs, D.baseMs),
    maxMs: positive('retry.maxMs', options.retry?.maxMs, D.maxMs),
    timeoutMs: positive('timeoutMs', options.timeoutMs, D.timeoutMs),
    maxPending: positive('maxPending', options.maxPending, D.maxPending),
    concurrency: positive('concurrency', options.concurrency, D.concurrency),
    pollMs: positive('pollMs', options.pollMs, D.pollMs),
    leaseMs: positive('leaseMs', options.leaseMs, D.leaseMs),
  };
}
