import { statusVerdict, type Verdict } from '../protocol/status.js';

export type { Verdict };
// One parser and one backoff for every face: they live in the protocol (the relay reads Retry-After with the same).
export { backoffDelay, retryAfterMs } from '../protocol/retry.js';

/**
 * What to do with one award after an answer: the protocol's one status table (protocol/status.ts), the same the
 * relay answers its single route and its batch with. 1xx/3xx never reach us from fetch.
 */
export const classify = (status: number): Verdict => statusVerdict(status);
