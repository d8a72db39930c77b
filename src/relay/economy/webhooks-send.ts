// One webhook attempt: the payload a ledger entry becomes, signed per Standard Webhooks (the `standardwebhooks`
// package: webhook-id, webhook-timestamp, webhook-signature), POSTed with a timeout, and what its answer means.
import { Webhook } from 'standardwebhooks';
import { ConfigError } from '../../kit/errors.js';
import { retryAfterMs } from '../../protocol/index.js';
import type { LedgerEntry } from './contract.js';

/** The types of event a webhook carries. */
export type WebhookEventType = 'award.acknowledged' | 'award.reversed';

/**
 * What an endpoint receives (the request's JSON body), the shape Standard Webhooks recommends: `type`, `timestamp`,
 * `data`. `data` is the ledger entry's award, never the API key. `serviceUserId` is the player's id at the service
 * (an e-mail or a wallet): it goes to the operator's own endpoint, so keep that endpoint's logs as private as the
 * ledger.
 */
export interface WebhookPayload {
  type: WebhookEventType;
  /** When the relay decided (the ledger entry's time), ISO 8601. Not the attempt's time: that is webhook-timestamp. */
  timestamp: string;
  data: {
    /** The webhook id again: the award's upstream idempotency key (a reversal: its own key). */
    key: string;
    questId: string;
    serviceUserId: string;
    eventName: string;
    /** Points as sent to the service: negative for a reversal. */
    eventPoints: number;
    /** The token's subject: the player (for a reversal too). */
    player: string;
    /** The operator who reversed it (the admin token's subject; award.reversed). */
    by?: string;
    /** A reversal's original award key (type award.reversed). */
    reverses?: string;
    /** The ledger entry's id (GET /admin/ledger?after=...). */
    ledgerId: string;
    /** The request that carried the award (X-Request-Id), to join the relay's access log. */
    requestId?: string;
  };
}

/**
 * The webhook id of a ledger entry: its key (the award's upstream key, a reversal's own derived key), so every
 * delivery of one award carries one id and a receiver deduplicates by it; `ledger_<id>` for an award sent without
 * an idempotency key (then two entries of one award are two ids).
 */
export const webhookId = (entry: LedgerEntry): string => entry.key ?? `ledger_${entry.id}`;

/** The payload of an acknowledged or reversed entry. */
export function webhookPayload(entry: LedgerEntry): WebhookPayload {
  const { questId, serviceUserId, eventName, eventPoints, player, reverses, by, requestId } = entry;
  return {
    type: entry.outcome === 'reversed' ? 'award.reversed' : 'award.acknowledged',
    timestamp: new Date(entry.at).toISOString(),
    data: {
      key: webhookId(entry),
      questId,
      serviceUserId,
      eventName,
      eventPoints,
      player,
      ...(reverses !== undefined ? { reverses } : {}),
      ...(by !== undefined ? { by } : {}),
      ledgerId: entry.id,
      ...(requestId !== undefined ? { requestId } : {}),
    },
  };
}

/** An endpoint as the operator configures it. */
export interface WebhookEndpoint {
  /** http(s) URL the relay POSTs to. From the operator's config only: never from a player's request. */
  url: string;
  /** The endpoint's signing secret, Standard Webhooks' `whsec_<base64>` (24 to 64 random bytes). Never logged. */
  secret: string;
}

/** An endpoint checked and ready to sign: its URL as logs show it (no query, no credentials). */
export interface Signer {
  url: string;
  shown: string;
  sign(id: string, at: Date, body: string): string;
}

/** Checks an endpoint at startup; the error names the endpoint's place, never its secret. */
export function signerOf(endpoint: WebhookEndpoint, index: number): Signer {
  const name = `webhooks.endpoints[${index}]`;
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    throw new ConfigError(`${name}.url`, 'invalid', `${name}.url must be an http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`${name}.url`, 'invalid', `${name}.url must be an http(s) URL, got ${url.protocol}`);
  }
  const secret = endpoint.secret;
  if (typeof secret !== 'string' || !/^whsec_[A-Za-z0-9+/]{22,}={0,2}$/.test(secret)) {
    throw new ConfigError(`${name}.secret`, 'invalid', `${name}.secret must be a Standard Webhooks secret: whsec_ then at least 16 bytes in base64`);
  }
  const webhook = new Webhook(secret);
  return { url: endpoint.url, shown: `${url.origin}${url.pathname}`, sign: (id, at, body) => webhook.sign(id, at, body) };
}

/** What one attempt got: delivered (2xx), gone (410: stop sending), or failed (retry, after `afterMs` at least). */
export type AttemptResult = { outcome: 'delivered' } | { outcome: 'gone' } | { outcome: 'failed'; error: string; afterMs?: number };

/** One POST of one payload, answered within `timeoutMs` or counted a failure. Redirects are not followed. */
export async function attempt(fetcher: typeof fetch, signer: Signer, id: string, body: string, timeoutMs: number): Promise<AttemptResult> {
  const at = new Date();
  let response: Response;
  try {
    response = await fetcher(signer.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signer.sign(id, at, body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { outcome: 'failed', error: failureName(error) };
  }
  // The body is not read: the status says it all, and the connection is freed.
  await response.body?.cancel().catch(() => {});
  if (response.status >= 200 && response.status < 300) return { outcome: 'delivered' };
  if (response.status === 410) return { outcome: 'gone' };
  const afterMs = retryAfterMs(response.headers.get('retry-after'));
  return { outcome: 'failed', error: `HTTP ${response.status}`, ...(afterMs !== undefined ? { afterMs } : {}) };
}

/** A failure's name for the log and the dead letter (`timeout`, `ECONNRESET`): never a message that might echo a URL. */
function failureName(error: unknown): string {
  if (!(error instanceof Error)) return 'error';
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timeout';
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : error.name;
}
