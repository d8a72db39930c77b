// What an answer means: the one place the relay reads a service result (or one of its own refusals). The single
// routes, the batch route, the metrics and /readyz all take their answer from here.
import { retryAfterSeconds, statusVerdict, type BatchResult } from '../protocol/index.js';
import type { RefusalCode } from '../protocol/refusal.js';
import type { AwardLabel } from './metrics.js';
import type { Refusal } from './policy.js';
import type { UpstreamResult } from './upstream.js';

const SERVICE = 'Quest Points Service';

/**
 * ok: applied (or replayed). final: refused for good, with the status. retry: nothing final is known, with the reason
 * and the service's Retry-After (whole seconds). auth: the service refused the relay's own API key (nothing the player
 * did: a batch answers retry, a single route 502).
 */
export type Meaning =
  | { verdict: 'ok'; status: number }
  | { verdict: 'final'; status: number; message: string; code?: RefusalCode | undefined }
  | { verdict: 'retry'; reason: string; status?: number; retryAfter?: number; message: string }
  | { verdict: 'auth'; retryAfter?: number; message: string };

const RETRY_REASONS: Record<number, string> = { 408: 'upstream_timeout', 409: 'in_flight', 429: 'rate_limited' };
const retryReason = (status: number) => RETRY_REASONS[status] ?? (status >= 500 ? 'upstream_error' : `upstream_${status}`);

/** The `message` of an error body, or 'no message'. */
export function upstreamMessage(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'no message';
}

/** What the service's answer (or its absence) means, by the protocol's status table. */
export function meaningOf(result: UpstreamResult): Meaning {
  if (result.kind === 'failure') {
    return {
      verdict: 'retry',
      reason: result.reason,
      ...(result.status !== undefined ? { status: result.status } : {}),
      message: `${SERVICE} ${result.message}`,
    };
  }
  const { status } = result;
  const seconds = retryAfterSeconds(result.retryAfter);
  const retryAfter = seconds === undefined ? {} : { retryAfter: seconds };
  if (status === 401) return { verdict: 'auth', message: `${SERVICE} refused the relay's API key (check QP_API_KEY)`, ...retryAfter };
  const verdict = statusVerdict(status);
  if (verdict === 'ok') return { verdict: 'ok', status };
  if (verdict === 'rejected') return { verdict: 'final', status, message: upstreamMessage(result.body) };
  return {
    verdict: 'retry',
    reason: retryReason(status),
    status,
    message: `${SERVICE} answered ${status}: ${upstreamMessage(result.body)}`,
    ...retryAfter,
  };
}

/** What one of the relay's own refusals (access, policy, a limit, the record) means, by the same table. */
export function meaningOfRefusal(refusal: Refusal): Meaning {
  const { status, message, retryAfter, reason, code } = refusal;
  if (statusVerdict(status) !== 'retry')
    return code === undefined ? { verdict: 'final', status, message } : { verdict: 'final', status, message, code };
  return { verdict: 'retry', reason: reason ?? retryReason(status), status, message, ...(retryAfter !== undefined ? { retryAfter } : {}) };
}

/**
 * How a single route answers a service result: null passes its status and body through (2xx, final 4xx and the
 * "wait, then resend" 4xx such as 409 and 429); otherwise the relay's own 502/503/504 with the message.
 */
export function outageOf(result: UpstreamResult, meaning: Meaning = meaningOf(result)): Refusal | null {
  if (result.kind === 'failure')
    return { status: result.reason === 'timeout' || result.reason === 'cancelled' ? 504 : 502, message: `${SERVICE} ${result.message}` };
  if (meaning.verdict === 'auth') return withRetryAfter({ status: 502, message: meaning.message }, meaning.retryAfter);
  if (meaning.verdict !== 'retry' || result.status < 500) return null;
  const status = result.status === 503 || result.status === 504 ? result.status : 502;
  return withRetryAfter({ status, message: meaning.message }, meaning.retryAfter);
}

const withRetryAfter = (refusal: Refusal, retryAfter: number | undefined): Refusal =>
  retryAfter === undefined ? refusal : { ...refusal, retryAfter };

/** One award's result in a batch answer: done, dead-letter, or send again later. */
export function batchResultOf(idempotencyKey: string, meaning: Meaning): BatchResult {
  switch (meaning.verdict) {
    case 'ok':
      return { idempotencyKey, outcome: 'ok' };
    case 'final':
      return meaning.code === undefined
        ? { idempotencyKey, outcome: 'rejected', status: meaning.status, message: meaning.message }
        : { idempotencyKey, outcome: 'rejected', status: meaning.status, message: meaning.message, code: meaning.code };
    case 'auth':
      return {
        idempotencyKey,
        outcome: 'retry',
        reason: 'upstream_auth',
        ...(meaning.retryAfter !== undefined ? { retryAfter: meaning.retryAfter } : {}),
      };
    default: {
      const { reason, status, retryAfter } = meaning;
      return {
        idempotencyKey,
        outcome: 'retry',
        reason,
        ...(status !== undefined ? { status } : {}),
        ...(retryAfter !== undefined ? { retryAfter } : {}),
      };
    }
  }
}

/** The metrics label: what the SDK will do with the award, with the relay's own refusals told apart. */
export function labelOf(meaning: Meaning, own: boolean): AwardLabel {
  if (own && meaning.verdict !== 'ok') {
    if (meaning.verdict === 'retry' && meaning.status === 429) return 'rate_limited';
    if (meaning.verdict === 'final') return 'refused';
  }
  return meaning.verdict === 'ok' ? 'ok' : meaning.verdict === 'final' ? 'rejected' : 'retry';
}
