// The one status policy: what an answer means for an award. The SDK classifies the relay's (or the service's) answers
// with it; the relay answers its single route and its batch with it and retries the service by it. A status is
// read the same way on every path, so an award is never dead-lettered by one path and resent forever by another.

import { refusalScope, type RefusalScope } from './refusal.js';

/**
 * What to do with one award after an answer.
 * - ok: acknowledged (first time or an idempotent replay): done.
 * - rejected: final: sending it again cannot help. A client dead-letters it (with the status and message) only when
 *   the refusal is about the award itself: answerHandling, below, reads whose it is from the body.
 * - auth: the caller's token is refused: fetch a fresh one, then send again with the same key.
 * - retry: nothing final is known: send again later with the same key.
 */
export type Verdict = 'ok' | 'rejected' | 'auth' | 'retry';

/** Answers that are no HTTP status. */
export type NoAnswer = 'network' | 'timeout';

/** How to treat one status (or no answer): its verdict, and for a retry, when to resend. */
export interface StatusRule {
  /** What the answer means for the award. */
  verdict: Verdict;
  /**
   * 'retry' only. now: a transient fault of the server; the relay resends it to the service at once (a few times,
   * with backoff, same key). later: the server asked for time (in flight, rate limited): the caller waits and resends.
   */
  resend?: 'now' | 'later';
}

/**
 * Every status with a rule of its own; anything else takes its class's rule below: 2xx ok, 4xx rejected, 5xx retried
 * (resend now). So these are final by their class, each for a reason: 400 the award breaks a field rule; 402 payment
 * required; 403 the caller may not do this (policy, quest, another player, an origin); 404 no such user, quest or
 * route (answerHandling tells the deployment's and the player's refusals from the award's); 405 and
 * 415 a client bug; 410 gone for good; 413 the body will stay too large; 422 a policy refusal, or the key was used
 * with a different award. And these are retried at once by their class: 500 (nothing applied is lost, the key makes a
 * resend safe), 502 (the service behind could not be reached), 503 (Retry-After is honoured when given), 504.
 */
export const STATUS_POLICY: Readonly<Record<number | NoAnswer, StatusRule>> = {
  // no answer: the award may or may not have been applied; the same key makes a resend safe
  network: { verdict: 'retry', resend: 'now' },
  // no answer in time: as for a network error
  timeout: { verdict: 'retry', resend: 'now' },
  // the caller's token is missing, expired or refused: fetch a fresh one. (To the relay, the service's 401 means the
  // relay's own API key is refused: nothing the player did, so the relay answers 502 / retry, never 401.)
  401: { verdict: 'auth' },
  // the server timed out reading the request: a 4xx that is no fault of the award
  408: { verdict: 'retry', resend: 'now' },
  // a request with this key is still in flight: its result is not known yet
  409: { verdict: 'retry', resend: 'later' },
  // too early: the server asks to wait
  425: { verdict: 'retry', resend: 'later' },
  // rate limited: wait for Retry-After
  429: { verdict: 'retry', resend: 'later' },
};

// success
const OTHER_2XX: StatusRule = { verdict: 'ok' };
// an unknown client error is final: resending the same request cannot fix it
const OTHER_4XX: StatusRule = { verdict: 'rejected' };
// an unknown server error is transient until proven otherwise
const OTHER_5XX: StatusRule = { verdict: 'retry', resend: 'now' };
// 1xx/3xx or out of range: no answer about the award
const NOT_AN_ANSWER: StatusRule = { verdict: 'retry', resend: 'now' };

/** The rule for a status (or for no answer at all). */
export function statusRule(status: number | NoAnswer): StatusRule {
  if (typeof status !== 'number') return STATUS_POLICY[status];
  const rule = STATUS_POLICY[status];
  if (rule) return rule;
  if (status >= 200 && status < 300) return OTHER_2XX;
  if (status >= 400 && status < 500) return OTHER_4XX;
  if (status >= 500 && status < 600) return OTHER_5XX;
  return NOT_AN_ANSWER;
}

/** What to do with an award after this answer. */
export const statusVerdict = (status: number | NoAnswer): Verdict => statusRule(status).verdict;

/** Error statuses a server's client resends at once, same key (ofetch's retryStatusCodes for the relay's calls). */
export const resendNowStatuses = (): number[] =>
  Array.from({ length: 200 }, (_, i) => 400 + i).filter((status) => statusRule(status).resend === 'now');

/**
 * What a client does with an award after an answer, once the body is read too: the status's verdict, with a final
 * one ('rejected') split by whose refusal it is (refusal.ts). The SDK and its service worker decide with this alone.
 * - rejected: about the award itself: dead-letter it.
 * - held: about the deployment (an origin not allowed, no such route, a proxy's HTML 404, a WAF's empty 403): the
 *   award stays queued and the queue holds, reported, and is tried again with backoff until the deployment heals.
 * - player: the award is another player's than the token's: it stays queued for its player's session.
 * - ok, auth, retry: as the status says.
 * A 5xx stays a retry whatever its body (a proxy's HTML 502 while the relay restarts is the usual case).
 */
export type Handling = Verdict | 'held' | 'player';

const BY_SCOPE: Readonly<Record<RefusalScope, Handling>> = { award: 'rejected', deployment: 'held', player: 'player' };

/** What to do with an award after this answer: `body` as read (parsed JSON, or the text when it was not JSON). */
export function answerHandling(status: number | NoAnswer, body?: unknown): Handling {
  const verdict = statusVerdict(status);
  return verdict === 'rejected' ? BY_SCOPE[refusalScope(body)] : verdict;
}
