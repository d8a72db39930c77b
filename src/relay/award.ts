import { paths, type AwardBody } from '../protocol/index.js';
import { checkUserAccess } from './access.js';
import type { VerifiedClaims } from './claims.js';
import type { RelayContext, RelayRuntime } from './context.js';
import { createDeadline, type Deadline } from './deadline.js';
import { checkPolicyPoints, checkPolicyQuest, type Refusal } from './policy.js';
import { checkRateLimit } from './rate-limit.js';
import type { UpstreamResult } from './upstream.js';

export interface AwardInput extends AwardBody {
  questId: string;
  /** The client's key; the service sees the player's derived key (keys.ts). */
  idempotencyKey?: string | undefined;
}

export type AwardOutcome = { refused: Refusal } | { result: UpstreamResult };

/**
 * One award, single route or batch alike: who may award, then the policy, then the per-player rate limit,
 * then the service (retried by the upstream client only when it carries an idempotency key).
 */
export async function runAward(
  runtime: RelayRuntime,
  claims: VerifiedClaims,
  requestId: string,
  award: AwardInput,
  signal?: AbortSignal,
): Promise<AwardOutcome> {
  const refusal =
    checkPolicyQuest(runtime.policy, award.questId) ??
    checkUserAccess(claims, award.questId, award.serviceUserId) ??
    checkPolicyPoints(runtime.policy, award);
  if (refusal) return { refused: refusal };
  // Admins are operators' tools (designer console, back office): the per-player limit is for players.
  if (claims.role !== 'admin') {
    const limited = await checkRateLimit(runtime, runtime.policy.rateLimits.perPlayer, 'perPlayer', claims.sub);
    if (limited) return { refused: limited };
  }
  // Only the spec's fields go to the service; eventName only when given, so the service's default applies.
  const body: AwardBody = { serviceUserId: award.serviceUserId, eventPoints: award.eventPoints };
  if (award.eventName !== undefined) body.eventName = award.eventName;
  if (award.eventDescription !== undefined) body.eventDescription = award.eventDescription;
  const idempotencyKey = award.idempotencyKey === undefined ? undefined : runtime.upstreamKey(claims.sub, award.idempotencyKey);
  const result = await runtime.upstream.send(
    { method: 'POST', path: paths.points(award.questId), body, idempotencyKey, requestId, signal },
    { retry: true },
  );
  return { result };
}

/** An award request's work stops at the relay's deadline (answered before the SDK gives up) or when the client goes. */
export const awardDeadline = (runtime: RelayRuntime, c: RelayContext): Deadline => createDeadline(runtime.deadlineMs, c.req.raw.signal);

/** Resolves when `work` settles or the signal fires, whichever is first. */
export function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', done, { once: true });
    work.then(done, done);
  });
}
