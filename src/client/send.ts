import { paths } from '../protocol/paths.js';
import type { BatchResult, QueuedAward } from '../protocol/batch.js';
import type { QuestPointsError } from './errors.js';
import { classify, type Verdict } from './retry.js';
import { answerError, type Answer, type Transport } from './transport.js';

/** What became of one award in one attempt. `skipped`: not tried, an earlier award must go first. */
export interface SendResult {
  outcome: Verdict | 'skipped';
  /** The HTTP status, when there was an answer. */
  status?: number;
  /** rejected: the relay's or the service's message. */
  message?: string;
  /** retry: 'status', 'network', 'timeout', or the relay's reason. */
  reason?: string;
  retryAfterMs?: number;
  /** auth: why no token could be had, or the refusal. */
  error?: unknown;
}

/** Only the wire fields: the outbox record also carries queuedAt and seq. */
export const toWire = ({ queuedAt, seq, ...wire }: QueuedAward & { queuedAt?: number; seq?: number }): QueuedAward => wire;

function fromAnswer(answer: Answer): SendResult {
  const error = answerError(answer);
  return { outcome: classify(answer.status), status: answer.status, reason: 'status', message: error.message, error, retryAfterMs: answer.retryAfterMs };
}

function fromError(error: unknown): SendResult {
  const code = (error as QuestPointsError)?.code;
  return { outcome: code === 'auth' ? code : 'retry', reason: code === 'timeout' ? code : 'network', error };
}

/**
 * One attempt for these awards, oldest first. Several go through the relay's batch endpoint; a batch refused as a
 * whole (400/413, or 404 where there is no batch endpoint) is not dead-lettered blindly but sent one by one so only
 * the bad award is refused. One by one, the first award that must wait stops the rest (order is kept).
 */
export async function sendAwards(transport: Transport, awards: QueuedAward[]): Promise<SendResult[]> {
  if (awards.length > 1 && transport.batch) {
    let answer: Answer;
    try {
      answer = await transport.request('POST', paths.batch(), { awards: awards.map(toWire) });
    } catch (error) {
      return awards.map(() => fromError(error));
    }
    const whole = fromAnswer(answer);
    if (whole.outcome === 'ok') {
      const results: BatchResult[] = Array.isArray(answer.body?.results) ? answer.body.results : [];
      const byKey = new Map(results.map((r) => [r?.idempotencyKey?.toLowerCase(), r]));
      return awards.map((a) => {
        const r = byKey.get(a.idempotencyKey.toLowerCase());
        return r ? { ...r, retryAfterMs: (r.outcome === 'retry' && r.retryAfter! * 1000) || 0 } : { outcome: 'retry', reason: 'no result' };
      });
    }
    if (whole.outcome !== 'rejected') return awards.map(() => whole);
  }
  const results: SendResult[] = [];
  for (const { questId, idempotencyKey, ...body } of awards.map(toWire)) {
    const waiting = results.some((r) => r.outcome === 'retry' || r.outcome === 'auth');
    results.push(
      waiting
        ? { outcome: 'skipped' }
        : await transport.request('POST', paths.points(questId), body, idempotencyKey).then(fromAnswer, fromError),
    );
  }
  return results;
}
