import { createMiddleware } from 'hono/factory';
import { API_KEY_HEADER } from '../protocol/index.js';
import type { Core } from './core.js';
import type { EmulatorEnv } from './env.js';
import { fail, sleep } from './http.js';

/** Equal strings in time that depends only on the candidate's length, not on where it differs. */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i % (b.length || 1));
  return diff === 0;
}

/** API_KEY on every service route: missing -> 400 (the spec), not one of ours -> 401. The key is never echoed. */
export const requireApiKey = (core: Core) =>
  createMiddleware<EmulatorEnv>(async (c, next) => {
    const key = c.req.header(API_KEY_HEADER);
    if (!key) return fail(400, `${API_KEY_HEADER} header is required`);
    let known = false;
    for (const candidate of core.apiKeys) known = constantTimeEqual(key, candidate) || known;
    if (!known) return fail(401, `${API_KEY_HEADER} header is not a valid API key`);
    c.set('apiKey', key);
    await next();
  });

/**
 * Injected faults, decided once per service request in arrival order (deterministic under a seed).
 * An injected error answers before anything is read or applied. Awards take their latency themselves,
 * after claiming their idempotency key, so a concurrent repeat really finds it in flight.
 */
export const injectFaults = (core: Core, { awardRoute = false } = {}) =>
  createMiddleware<EmulatorEnv>(async (c, next) => {
    const decision = core.faults.decide();
    c.set('fault', decision);
    if (decision.error) {
      await sleep(decision.delayMs);
      c.var.log.fault = `error-${decision.error}`;
      return injectedError(decision.error, core.faults.retryAfterSeconds());
    }
    if (!awardRoute) await sleep(decision.delayMs);
    await next();
  });

export function injectedError(status: 500 | 503 | 429, retryAfterSeconds: number): Response {
  if (status === 500) return fail(500, 'internal error');
  const retryAfter = { 'retry-after': String(retryAfterSeconds) };
  if (status === 429) return fail(429, `too many requests: retry after ${retryAfterSeconds} s`, retryAfter);
  return fail(503, `service unavailable: retry after ${retryAfterSeconds} s`, retryAfter);
}
