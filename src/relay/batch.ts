import { Hono } from 'hono';
import pLimit from 'p-limit';
import {
  BATCH_BODY_LIMIT_BYTES,
  BatchEnvelopeSchema,
  QueuedAwardSchema,
  routes,
  statusVerdict,
  type BatchResponse,
  type BatchResult,
  type QueuedAward,
} from '../protocol/index.js';
import { checkUserAccess } from './access.js';
import { awardDeadline, runAward, untilAborted, type AwardOutcome } from './award.js';
import type { VerifiedClaims } from './claims.js';
import type { RelayEnv, RelayRuntime } from './context.js';
import { limitBody, requireJson } from './hygiene.js';
import { fail, serviceRetryAfter, upstreamMessage } from './respond.js';
import { check, readJson } from './validate.js';

// The envelope is checked whole; each award on its own, so one bad award is rejected without holding
// back the other 99. Only an award without a usable idempotency key fails the whole batch: its result
// could not be matched to it.
/** POST /batch/points: up to 100 awards, one result each, in request order. */
export function batchRoute(runtime: RelayRuntime): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  app.post(routes.batch, limitBody(BATCH_BODY_LIMIT_BYTES), requireJson, async (c) => {
    const json = await readJson(c, BATCH_BODY_LIMIT_BYTES);
    if (!json.ok) return fail(c, json.refusal);
    const envelope = check(BatchEnvelopeSchema, json.value);
    if (!envelope.ok) return fail(c, envelope.refusal);
    const rawAwards = (json.value as { awards: unknown[] }).awards;
    const keys = envelope.value.awards.map((award) => award.idempotencyKey);
    const duplicate = findDuplicate(keys);
    if (duplicate) {
      return fail(c, { status: 400, message: `awards.${duplicate[1]}.idempotencyKey duplicates awards.${duplicate[0]}.idempotencyKey` });
    }

    const claims = c.get('claims');
    const requestId = c.get('requestId');
    const results: (BatchResult | undefined)[] = new Array(keys.length);
    // A player's awards go one after the other, in request order; distinct players run side by side.
    const lanes = new Map<string, Lane>();
    keys.forEach((idempotencyKey, index) => {
      const award = check(QueuedAwardSchema, rawAwards[index]);
      if (!award.ok) {
        results[index] = { idempotencyKey, outcome: 'rejected', status: 400, message: award.refusal.message };
        return;
      }
      // Checked before a lane is formed: a player cannot queue behind (and so hold up) another player's awards.
      const denied = checkUserAccess(claims, award.value.questId, award.value.serviceUserId);
      if (denied) {
        results[index] = { idempotencyKey, outcome: 'rejected', status: denied.status, message: denied.message };
        return;
      }
      const player = award.value.serviceUserId;
      lanes.set(player, [...(lanes.get(player) ?? []), { award: award.value, index }]);
    });
    const deadline = awardDeadline(runtime, c);
    const { signal } = deadline;
    const limit = pLimit(runtime.batchConcurrency);
    const work = Promise.all([...lanes].map(([player, lane]) => limit(() => runLane(runtime, { claims, requestId, player, lane, results, signal }))));
    await untilAborted(work, signal);
    deadline.dispose();
    // Not sent, or not answered, by the deadline (or the client left): nothing final is known, send it again later.
    const body: BatchResponse = {
      success: true,
      results: keys.map((idempotencyKey, index) => results[index] ?? { idempotencyKey, outcome: 'retry', reason: 'deadline' }),
    };
    return c.json(body, 200);
  });
  return app;
}

type Lane = { award: QueuedAward; index: number }[];

/**
 * One player's awards of a batch, in order, in the player's turn. Once one is answered retry, the later ones are
 * answered retry unsent: sent now, they would land before it and the player's history would be out of award order.
 */
async function runLane(
  runtime: RelayRuntime,
  job: { claims: VerifiedClaims; requestId: string; player: string; lane: Lane; results: (BatchResult | undefined)[]; signal: AbortSignal },
): Promise<void> {
  const { lane, results, signal } = job;
  if (signal.aborted) return;
  const turn = await runtime.players.acquire(job.player, signal);
  if (turn === 'cancelled') return;
  if (turn === 'busy') {
    for (const { award, index } of lane) results[index] = { idempotencyKey: award.idempotencyKey, outcome: 'retry', reason: 'relay_busy' };
    return;
  }
  try {
    let held = false;
    for (const { award, index } of lane) {
      if (signal.aborted) return;
      if (held) {
        results[index] = { idempotencyKey: award.idempotencyKey, outcome: 'retry', reason: 'earlier_award_pending' };
        continue;
      }
      const outcome = await runAward(runtime, job.claims, job.requestId, award, signal);
      const result = batchResult(award.idempotencyKey, outcome);
      runtime.metrics.award(outcome, result);
      results[index] = result;
      held = result.outcome === 'retry';
    }
  } finally {
    turn.release();
  }
}

/** [first index, second index] of the first key seen twice (UUIDs compare case-insensitively). */
function findDuplicate(keys: string[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (const [index, key] of keys.entries()) {
    const first = seen.get(key.toLowerCase());
    if (first !== undefined) return [first, index];
    seen.set(key.toLowerCase(), index);
  }
  return null;
}

/** One award's outcome for the SDK, by the protocol's status table: done, dead-letter, or send again later. */
export function batchResult(idempotencyKey: string, outcome: AwardOutcome): BatchResult {
  if ('refused' in outcome) {
    const { status, message, retryAfter, reason } = outcome.refused;
    if (statusVerdict(status) === 'retry') {
      return { idempotencyKey, outcome: 'retry', reason: reason ?? retryReason(status), status, ...(retryAfter !== undefined ? { retryAfter } : {}) };
    }
    return { idempotencyKey, outcome: 'rejected', status, message };
  }
  const result = outcome.result;
  if (result.kind === 'failure') {
    return { idempotencyKey, outcome: 'retry', reason: result.reason, ...(result.status !== undefined ? { status: result.status } : {}) };
  }
  const { status } = result;
  // The service refused the relay's own API key: nothing the player did, nothing to dead-letter, no token to renew.
  if (status === 401) return { idempotencyKey, outcome: 'retry', reason: 'upstream_auth', ...serviceRetryAfter(result) };
  const verdict = statusVerdict(status);
  if (verdict === 'ok') return { idempotencyKey, outcome: 'ok' };
  if (verdict === 'rejected') return { idempotencyKey, outcome: 'rejected', status, message: upstreamMessage(result.body) };
  return { idempotencyKey, outcome: 'retry', reason: retryReason(status), status, ...serviceRetryAfter(result) };
}

const RETRY_REASONS: Record<number, string> = { 408: 'upstream_timeout', 409: 'in_flight', 429: 'rate_limited' };
const retryReason = (status: number) => RETRY_REASONS[status] ?? (status >= 500 ? 'upstream_error' : `upstream_${status}`);
