import * as v from 'valibot';
import { RelayAwardBodySchema } from './bodies.js';
import { QuestIdSchema } from './fields.js';
import { IdempotencyKeySchema } from './params.js';
import { BATCH_MAX_AWARDS } from './limits.js';

// The relay's own endpoint for the SDK: POST /batch/points. Not part of the service interface.

/** One award as the SDK queues it: the spec's body (and the relay's onceKey) plus its quest and its persisted idempotency key. */
export const QueuedAwardSchema = v.object({
  ...RelayAwardBodySchema.entries,
  questId: QuestIdSchema,
  idempotencyKey: IdempotencyKeySchema,
});
/** An award body plus `questId` and `idempotencyKey`, as QueuedAwardSchema outputs it. */
export type QueuedAward = v.InferOutput<typeof QueuedAwardSchema>;

const awardsList = <T extends v.GenericSchema>(award: T) =>
  v.object(
    {
      awards: v.pipe(
        v.array(award, 'must be an array'),
        v.minLength(1, 'must hold at least 1 award'),
        v.maxLength(BATCH_MAX_AWARDS, `must hold at most ${BATCH_MAX_AWARDS} awards`),
      ),
    },
    'body must be a JSON object',
  );

/**
 * POST /batch/points — the envelope as the relay checks it whole: 1 to BATCH_MAX_AWARDS entries, each with a usable
 * idempotency key (a result could not be matched to an award without one). Each award's other fields are checked on
 * their own (QueuedAwardSchema), so one bad award is rejected without holding back the others.
 */
export const BatchEnvelopeSchema = awardsList(v.object({ idempotencyKey: IdempotencyKeySchema }));

/** POST /batch/points — request body: `{ awards }`, 1 to BATCH_MAX_AWARDS queued awards, any quests and players. */
export const BatchRequestSchema = awardsList(QueuedAwardSchema);
/** `{ awards: QueuedAward[] }`, as BatchRequestSchema outputs it. */
export type BatchRequest = v.InferOutput<typeof BatchRequestSchema>;

/**
 * One result per award, in request order.
 * - ok: the service acknowledged it (first time or an idempotent replay): remove it from the outbox.
 * - rejected: a final refusal (policy or service 4xx): dead-letter it, with the status and message.
 * - retry: nothing final is known (network, timeout, 408/409/429/5xx): send again later with the same key.
 */
export const BatchResultSchema = v.variant('outcome', [
  v.object({ idempotencyKey: v.string(), outcome: v.literal('ok') }),
  v.object({
    idempotencyKey: v.string(),
    outcome: v.literal('rejected'),
    status: v.number(),
    message: v.string(),
    /** The relay's refusal code (protocol/refusal.ts): who the refusal is about. Absent from the service's own. */
    code: v.optional(v.string()),
  }),
  v.object({
    idempotencyKey: v.string(),
    outcome: v.literal('retry'),
    reason: v.string(),
    status: v.optional(v.number()),
    /** Seconds, from the service's Retry-After when it sent one. */
    retryAfter: v.optional(v.number()),
  }),
]);
/** One award's result, told apart by `outcome` (see BatchResultSchema for what each means to the outbox). */
export type BatchResult = v.InferOutput<typeof BatchResultSchema>;

/** 200 of POST /batch/points: one result per award, in request order. */
export const BatchResponseSchema = v.object({ success: v.literal(true), results: v.array(BatchResultSchema) });
/** `{ success: true, results: BatchResult[] }`, as BatchResponseSchema reads it. */
export type BatchResponse = v.InferOutput<typeof BatchResponseSchema>;
