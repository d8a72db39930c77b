import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorBody } from '../kit/http.js';
import { logEvent, redactFor, type RelayRuntime, type StepContext } from './context.js';
import { meaningOf, outageOf, upstreamMessage } from './outcome.js';

const SERVICE_SAYS = 'the Quest Points Service: ';
import type { Refusal } from './policy.js';
import type { UpstreamResult } from './upstream.js';

/**
 * The standard error body `{ success: false, message, code }` (code when the refusal has one), with Retry-After when
 * it has one; the refusal is kept for the access log line, which names its code and message (app.ts).
 */
export function fail<A>(c: StepContext<A>, refusal: Refusal): A {
  if (refusal.retryAfter !== undefined) c.header('Retry-After', String(refusal.retryAfter));
  c.set('refusal', refusal);
  const body = refusal.code === undefined ? errorBody(refusal.message) : { ...errorBody(refusal.message), code: refusal.code };
  return c.json(body, refusal.status as ContentfulStatusCode);
}

/**
 * Answer a single route from the service's result (outcome.ts says what it means): its status and body, or a clear
 * 502/503/504. Whatever the relay answers carries the service's Retry-After when it sent one.
 */
export function relayUpstream<A>(runtime: RelayRuntime, c: StepContext<A>, result: UpstreamResult, meaning = meaningOf(result)): A {
  const outage = outageOf(result, meaning);
  if (outage) {
    logEvent(runtime, c, 'error', `upstream: ${outage.message} (attempts ${result.attempts})`, { status: outage.status });
    return fail(c, { ...outage, message: redactFor(runtime, c, outage.message) });
  }
  const response = result as Extract<UpstreamResult, { kind: 'response' }>;
  const retryAfter = 'retryAfter' in meaning ? meaning.retryAfter : undefined;
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  // The service's own refusal, passed through as it is (no code: it is about the award): its message for the log.
  if (response.status >= 400) c.set('refusal', { message: `${SERVICE_SAYS}${upstreamMessage(response.body)}` });
  return c.json(response.body as object, response.status as ContentfulStatusCode);
}
