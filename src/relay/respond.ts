import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorBody } from '../kit/http.js';
import { logEvent, redactFor, type RelayContext, type RelayRuntime } from './context.js';
import { meaningOf, outageOf } from './outcome.js';
import type { Refusal } from './policy.js';
import type { UpstreamResult } from './upstream.js';

/** The standard error body, with Retry-After when the refusal has one. */
export function fail(c: RelayContext, refusal: Refusal): Response {
  if (refusal.retryAfter !== undefined) c.header('Retry-After', String(refusal.retryAfter));
  return c.json(errorBody(refusal.message), refusal.status as ContentfulStatusCode);
}

/**
 * Answer a single route from the service's result (outcome.ts says what it means): its status and body, or a clear
 * 502/503/504. Whatever the relay answers carries the service's Retry-After when it sent one.
 */
export function relayUpstream(runtime: RelayRuntime, c: RelayContext, result: UpstreamResult, meaning = meaningOf(result)): Response {
  const outage = outageOf(result, meaning);
  if (outage) {
    logEvent(runtime, c, 'error', `upstream: ${outage.message} (attempts ${result.attempts})`, { status: outage.status });
    return fail(c, { ...outage, message: redactFor(runtime, c, outage.message) });
  }
  const response = result as Extract<UpstreamResult, { kind: 'response' }>;
  const retryAfter = 'retryAfter' in meaning ? meaning.retryAfter : undefined;
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  return c.json(response.body as object, response.status as ContentfulStatusCode);
}
