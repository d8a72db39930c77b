import { Hono } from 'hono';
import pLimit from 'p-limit';
import * as v from 'valibot';
import {
  BATCH_BODY_LIMIT_BYTES,
  BATCH_MAX_AWARDS,
  IdempotencyKeySchema,
  QueuedAwardSchema,
  routes,
  type BatchResponse,
  type BatchResult,
  type QueuedAward,
} from '../protocol/index.js';
import { runAward, type AwardOutcome } from './award.js';
import type { RelayEnv, RelayRuntime } from './context.js';
import { limitBody, requireJson } from './hygiene.js';
import { fail, retryAfterSeconds, upstreamMessage } from './respond.js';
import { check, checkSegments, readJson } from './validate.js';

// The envelope is checked whole; each award on its own, so one bad award is rejected without holding
// back the other 99. Only an award without a usable idempotency key fails the whole batch: its result
// could not be matched to it.
const EnvelopeSchema = v.object(
  {
    awards: v.pipe(
      v.array(v.object({ idempotencyKey: IdempotencyKeySchema }), 'must be an array'),
      v.minLength(1, 'must hold at least 1 award'),
      v.maxLength(BATCH_MAX_AWARDS, `must hold at most ${BATCH_MAX_AWARDS} awards`),
    ),
  },
  'body must be a JSON object',
);

/** POST /batch/points: up to 100 awards, one result each, in request order. */
export function batchRoute(runtime: RelayRuntime): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  app.post(routes.batch, limitBody(BATCH_BODY_LIMIT_BYTES), requireJson, async (c) => {
    const json = await readJson(c);
    if (!json.ok) return fail(c, json.refusal);
    const envelope = check(EnvelopeSchema, json.value);
    if (!envelope.ok) return fail(c, envelope.refusal);
    const rawAwards = (json.value as { awards: unknown[] }).awards;
    const keys = envelope.value.awards.map((award) => award.idempotencyKey);
    const duplicate = findDuplicate(keys);
    if (duplicate) {
      return fail(c, { status: 400, message: `awards.${duplicate[1]}.idempotencyKey duplicates awards.${duplicate[0]}.idempotencyKey` });
    }

    const claims = c.get('claims');
    const requestId = c.get('requestId');
    const results: BatchResult[] = new Array(keys.length);
    // Awards to one (questId, serviceUserId) go one after the other, in order; distinct pairs run side by side.
    const lanes = new Map<string, QueuedAward[]>();
    const indexOf = new Map<QueuedAward, number>();
    rawAwards.forEach((raw, index) => {
      const idempotencyKey = keys[index]!;
      const award = check(QueuedAwardSchema, raw);
      if (!award.ok) {
        results[index] = { idempotencyKey, outcome: 'rejected', status: 400, message: award.refusal.message };
        return;
      }
      const segments = checkSegments({ questId: award.value.questId });
      if (segments) {
        results[index] = { idempotencyKey, outcome: 'rejected', status: 400, message: segments.message };
        return;
      }
      indexOf.set(award.value, index);
      const lane = JSON.stringify([award.value.questId, award.value.serviceUserId]);
      lanes.set(lane, [...(lanes.get(lane) ?? []), award.value]);
    });
    const limit = pLimit(runtime.batchConcurrency);
    await Promise.all(
      [...lanes.values()].map((lane) =>
        limit(async () => {
          for (const award of lane) {
            const outcome = await runAward(runtime, claims, requestId, award);
            runtime.metrics.award(outcome);
            results[indexOf.get(award)!] = batchResult(award.idempotencyKey, outcome);
          }
        }),
      ),
    );
    const body: BatchResponse = { success: true, results };
    return c.json(body, 200);
  });
  return app;
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

const FINAL_STATUSES = new Set([400, 403, 404, 413, 422]);

/** Classify one award's outcome for the SDK: done, dead-letter, or send again later with the same key. */
export function batchResult(idempotencyKey: string, outcome: AwardOutcome): BatchResult {
  if ('refused' in outcome) {
    const { status, message, retryAfter } = outcome.refused;
    if (status === 429) return { idempotencyKey, outcome: 'retry', reason: 'rate_limited', status, ...(retryAfter !== undefined ? { retryAfter } : {}) };
    // The relay itself could not decide (its rate-limit store is away, onStoreError 'closed'): send again later.
    if (status >= 500) return { idempotencyKey, outcome: 'retry', reason: 'relay_unavailable', status, ...(retryAfter !== undefined ? { retryAfter } : {}) };
    return { idempotencyKey, outcome: 'rejected', status, message };
  }
  const result = outcome.result;
  if (result.kind === 'failure') {
    return { idempotencyKey, outcome: 'retry', reason: result.reason, ...(result.status !== undefined ? { status: result.status } : {}) };
  }
  const { status } = result;
  if (status >= 200 && status < 300) return { idempotencyKey, outcome: 'ok' };
  // The service refused the relay's own API key: nothing the player did, nothing to dead-letter.
  if (status === 401) return { idempotencyKey, outcome: 'retry', reason: 'upstream_auth' };
  if (FINAL_STATUSES.has(status)) return { idempotencyKey, outcome: 'rejected', status, message: upstreamMessage(result.body) };
  const retryAfter = status === 429 || status === 503 ? retryAfterSeconds(result.retryAfter) : undefined;
  return {
    idempotencyKey,
    outcome: 'retry',
    reason: RETRY_REASONS[status] ?? (status >= 500 ? 'upstream_error' : `upstream_${status}`),
    status,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

const RETRY_REASONS: Record<number, string> = { 408: 'upstream_timeout', 409: 'in_flight', 429: 'rate_limited' };
