import { paths } from '../protocol/paths.js';
import type { BatchResult, QueuedAward } from '../protocol/batch.js';
import type { QuestPointsError } from './errors.js';
import type { Handling } from '../protocol/status.js';
import { toWire, type SendResult } from './send.js';
import { answerError, type Answer, type Transport } from './transport.js';

// The sending itself and its reading of the answers (send.ts has what settles them): loaded with the first send
// (flusher.ts), not with the page, since it only runs once a request is made.

function fromAnswer(answer: Answer): SendResult {
  const { status, body, handling } = answer;
  if (handling === 'ok') return { outcome: 'ok' };
  const error = answerError(answer);
  if (handling === 'auth') return { outcome: 'auth', error };
  // A code is the relay's (refusal.ts): a string, or a body refusalScope did not take for the relay's (then none).
  return refusal(handling, status, error.message, typeof body?.code === 'string' ? body.code : undefined, answer.retryAfterMs);
}

/**
 * A refusal or a retry, by its handling: only one about the award itself is final (and a batch's refused result that
 * the rule calls 'ok' or 'auth', which no relay sends, stays the refusal it says it is).
 */
function refusal(handling: Handling, status: number, message: string, code?: string, retryAfterMs?: number): SendResult {
  // Another player's award: it waits in the queue for that player's session.
  if (handling === 'player') return { outcome: 'retry', reason: 'player', status };
  // No code: not the relay's answer (a proxy's HTML page, a WAF's empty 403), or an older relay's.
  if (handling === 'held') return { outcome: 'retry', reason: 'deployment', status, refused: { status, message, code } };
  if (handling === 'retry') return { outcome: 'retry', reason: 'status', status, retryAfterMs };
  // Final: the relay's code goes with it (`award:rejected`'s dead letter), when there is one.
  return { outcome: 'rejected', status, message, ...(code ? { code } : {}) };
}

function fromError(error: unknown): SendResult {
  const code = (error as QuestPointsError)?.code;
  if (code === 'auth') return { outcome: 'auth', error };
  // The token route answered a status the protocol retries (tokenFailure): an answer, so not offline.
  const status = (error as QuestPointsError)?.status;
  if (code === 'http' && status !== undefined) return { outcome: 'retry', reason: 'status', status };
  return { outcome: 'retry', reason: code === 'timeout' ? code : 'network', noAnswer: true };
}

/** One result of a batch's answer, by the answer's `rule`: a refusal is read as the relay's error body with its code. */
function fromBatchResult(result: BatchResult | undefined, rule: Answer['rule']): SendResult {
  if (!result) return { outcome: 'retry', reason: 'no result' };
  if (result.outcome === 'ok') return result;
  if (result.outcome === 'rejected') {
    const { status, message, code } = result;
    return refusal(rule(status, { success: false, message, code }), status, message, code);
  }
  const { reason, status, retryAfter } = result;
  return { outcome: 'retry', reason, status, retryAfterMs: (retryAfter ?? 0) * 1000 };
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
      const { body, rule } = answer;
      const results: BatchResult[] = Array.isArray(body?.results) ? body.results : [];
      const byKey = new Map(results.map((r) => [r?.idempotencyKey?.toLowerCase(), r]));
      return awards.map((a) => fromBatchResult(byKey.get(a.idempotencyKey.toLowerCase()), rule));
    }
    // Refused as a whole for the deployment (a relay without the batch route answers a 404 page): the singles decide.
    if (whole.outcome !== 'rejected' && !(whole.outcome === 'retry' && whole.refused)) return awards.map(() => whole);
  }
  const results: SendResult[] = [];
  for (const { questId, idempotencyKey, ...body } of awards.map(toWire)) {
    // onceKey is the relay's (its once-only rule): the service, in direct mode, is never sent it.
    if (!transport.batch) body.onceKey = undefined;
    const waiting = results.some((r) => r.outcome === 'retry' || r.outcome === 'auth');
    if (waiting) results.push({ outcome: 'skipped' });
    else results.push(await transport.request('POST', paths.points(questId), body, idempotencyKey).then(fromAnswer, fromError));
  }
  return results;
}
