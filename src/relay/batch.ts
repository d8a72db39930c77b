import { Hono } from 'hono';
import {
  BATCH_BODY_LIMIT_BYTES,
  BatchEnvelopeSchema,
  QueuedAwardSchema,
  routes,
  type BatchResponse,
  type BatchResult,
  type QueuedAward,
} from '../protocol/index.js';
import type { RefusalCode } from '../protocol/refusal.js';
import { clientGone, type RelayEnv, type RelayRuntime } from './context.js';
import { jsonBody } from './hygiene.js';
import { batchResultOf, meaningOfRefusal } from './outcome.js';
import { runAwards } from './pipeline.js';
import { fail } from './respond.js';
import { check } from './validate.js';

/**
 * POST /batch/points: up to 100 awards, one result each, in request order. The envelope is checked whole (the
 * protocol's BatchEnvelopeSchema); each award on its own, so one bad award is rejected without holding back the
 * others. Then every valid award goes through the one award pipeline (pipeline.ts), the single route's too.
 */
export function batchRoute(runtime: RelayRuntime): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  app.post(routes.batch, jsonBody(BATCH_BODY_LIMIT_BYTES), async (c) => {
    const json = c.get('json');
    const envelope = check(BatchEnvelopeSchema, json);
    if (!envelope.ok) return fail(c, envelope.refusal);
    const rawAwards = (json as { awards: unknown[] }).awards;
    const keys = envelope.value.awards.map((award) => award.idempotencyKey);
    const duplicate = findDuplicate(keys);
    if (duplicate) {
      return fail(c, {
        status: 400,
        message: `awards.${duplicate[1]}.idempotencyKey duplicates awards.${duplicate[0]}.idempotencyKey`,
        code: 'invalid',
      });
    }
    const results: (BatchResult | undefined)[] = new Array(keys.length);
    const valid: QueuedAward[] = [];
    const at: number[] = [];
    keys.forEach((idempotencyKey, index) => {
      const award = check(QueuedAwardSchema, rawAwards[index]);
      if (award.ok) {
        valid.push(award.value);
        at.push(index);
      } else {
        results[index] = batchResultOf(idempotencyKey, meaningOfRefusal(award.refusal));
      }
    });
    const settled = await runAwards(runtime, { claims: c.get('claims'), requestId: c.get('requestId'), signal: clientGone(c) }, valid);
    at.forEach((index, i) => {
      const one = settled[i];
      const idempotencyKey = valid[i]?.idempotencyKey ?? '';
      // Not sent, or not answered, by the deadline (or the client left): nothing final is known, send it again later.
      results[index] = one ? batchResultOf(idempotencyKey, one.meaning) : { idempotencyKey, outcome: 'retry', reason: 'deadline' };
    });
    const rejected = results.filter((result) => result?.outcome === 'rejected');
    const [first] = rejected;
    if (first) {
      // A batch is answered 200 whatever its awards' fates: its log line still names why awards were refused.
      const message = `${rejected.length} of ${results.length} awards rejected, the first: ${first.message}`;
      c.set('refusal', first.code === undefined ? { message } : { code: first.code as RefusalCode, message });
    }
    const body: BatchResponse = { success: true, results: results as BatchResult[] };
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
