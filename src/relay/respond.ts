import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorBody } from '../kit/http.js';
import { statusVerdict } from '../protocol/index.js';
import { logEvent, redactFor, type RelayContext, type RelayRuntime } from './context.js';
import type { Refusal } from './policy.js';
import type { UpstreamResult } from './upstream.js';

const SERVICE = 'Quest Points Service';

/** The standard error body, with Retry-After when the refusal has one. */
export function fail(c: RelayContext, refusal: Refusal): Response {
  if (refusal.retryAfter !== undefined) c.header('Retry-After', String(refusal.retryAfter));
  return c.json(errorBody(refusal.message), refusal.status as ContentfulStatusCode);
}

export function upstreamMessage(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'no message';
}

/**
 * What a failed exchange with the service means for the relay's caller, or null when the service's answer
 * passes through unchanged. The service's 401 means the relay's own API key is wrong: the caller gets 502.
 */
export function upstreamOutage(result: UpstreamResult): Refusal | null {
  if (result.kind === 'failure') {
    const status = result.reason === 'timeout' || result.reason === 'cancelled' ? 504 : 502;
    return { status, message: `${SERVICE} ${result.message}` };
  }
  if (result.status === 401)
    return { status: 502, message: `${SERVICE} refused the relay's API key (check QP_API_KEY)`, ...serviceRetryAfter(result) };
  // 2xx, final 4xx and the "wait, then resend" 4xx (409, 429) pass through: the caller reads them by the same table.
  if (statusVerdict(result.status) !== 'retry' || result.status < 500) return null;
  const detail = `${SERVICE} answered ${result.status}: ${upstreamMessage(result.body)}`;
  const status = result.status === 503 || result.status === 504 ? result.status : 502;
  return { status, message: detail, ...serviceRetryAfter(result) };
}

/** Retry-After as whole seconds; the HTTP-date form is not passed on. */
export function retryAfterSeconds(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

/**
 * The one Retry-After rule, single route and batch alike: when the service's answer carries one (whole seconds),
 * whatever the relay answers from it carries it too, whatever the status (a pass-through 409 or 429, a 500 turned
 * 502, a batch result `retry`).
 */
export function serviceRetryAfter(result: UpstreamResult): { retryAfter?: number } {
  const seconds = result.kind === 'response' ? retryAfterSeconds(result.retryAfter) : undefined;
  return seconds === undefined ? {} : { retryAfter: seconds };
}

/** Answer a single route from the service's result: its status and body, or a clear 502/503/504. */
export function relayUpstream(runtime: RelayRuntime, c: RelayContext, result: UpstreamResult): Response {
  const outage = upstreamOutage(result);
  if (outage) {
    logEvent(runtime, c, 'error', `upstream: ${outage.message} (attempts ${result.attempts})`, { status: outage.status });
    return fail(c, { ...outage, message: redactFor(runtime, c, outage.message) });
  }
  const response = result as Extract<UpstreamResult, { kind: 'response' }>;
  const retry = serviceRetryAfter(response).retryAfter;
  if (retry !== undefined) c.header('Retry-After', String(retry));
  return c.json(response.body as object, response.status as ContentfulStatusCode);
}
