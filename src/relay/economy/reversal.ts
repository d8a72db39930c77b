// Reversing an acknowledged award: a negative correction sent to the service under a key derived from the original
// key, so reversing twice (on this relay or another one holding the same key secret) is applied once by the service.
import { paths, statusVerdict } from '../../protocol/index.js';
import type { RelayRuntime } from '../context.js';
import { meaningOf, upstreamMessage } from '../outcome.js';
import type { Refusal } from '../policy.js';
import type { LedgerDraft, LedgerEntry } from './contract.js';
import type { RelayLedger } from './ledger.js';

/**
 * The subject under which reversal keys are derived (keys.ts): the reversal of award key K is sent under
 * upstreamKey(REVERSAL_SUBJECT, K), the same on every relay sharing the key secret. A player whose sub were this
 * could only collide by sending, as a client key, another award's upstream key, which it never sees.
 */
export const REVERSAL_SUBJECT = 'qp:reversal';

/** What a reversal asks: the award's quest and key (as the ledger shows it), the operator, the request. */
export interface ReversalRequest {
  questId: string;
  key: string;
  by: string;
  requestId: string;
}

/** A reversal done (or found done before): the correction's key and points, and the original key. */
export interface ReversalDone {
  key: string;
  reverses: string;
  eventPoints: number;
  /** Already reversed: found in the ledger, nothing sent again. */
  already?: true;
}

/** Most ledger pages a reversal reads looking for the award (each scans a bounded number of entries). */
const MAX_PAGES = 200;

/** Find the award and its reversal in the ledger, send the correction, record it. A refusal says why not. */
export async function reverseAward(
  runtime: RelayRuntime,
  ledger: RelayLedger,
  request: ReversalRequest,
): Promise<ReversalDone | { refusal: Refusal }> {
  const { questId, key } = request;
  let original: LedgerEntry | undefined;
  let reversal: LedgerEntry | undefined;
  try {
    // Entries not yet appended (this tick's) are appended first: an award acknowledged a moment ago can be reversed.
    await ledger.flush();
    let after: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page = await ledger.store.read({ questId, key, limit: 1000, ...(after !== undefined ? { after } : {}) });
      for (const entry of page.entries) {
        if (entry.outcome === 'acknowledged' && entry.key === key) original ??= entry;
        if (entry.outcome === 'reversed' && entry.reverses === key) reversal ??= entry;
      }
      if (page.next === undefined) break;
      after = page.next;
    }
  } catch (error) {
    return {
      refusal: {
        status: 503,
        message: `ledger store unavailable (${error instanceof Error ? error.name : 'error'}); try again shortly`,
        retryAfter: 1,
      },
    };
  }
  if (reversal) return { key: reversal.key as string, reverses: key, eventPoints: reversal.eventPoints, already: true };
  if (!original) {
    const days = Math.round(ledger.retentionMs / 86_400_000);
    return {
      refusal: {
        status: 404,
        message: `no acknowledged award with key ${key} in quest ${JSON.stringify(questId)} in the ledger (it keeps ${days} days)`,
      },
    };
  }
  const reversalKey = runtime.upstreamKey(REVERSAL_SUBJECT, key);
  // -0 would be a no-op the service records anyway; an award of 0 has nothing to reverse.
  const eventPoints = original.eventPoints === 0 ? 0 : -original.eventPoints;
  const body = {
    serviceUserId: original.serviceUserId,
    eventPoints,
    // The original's event name: per-event sums then net to zero; the description links the original key.
    eventName: original.eventName,
    eventDescription: `Reversal of award ${key}`,
  };
  const result = await runtime.upstream.send(
    { method: 'POST', path: paths.points(questId), body, idempotencyKey: reversalKey, requestId: request.requestId },
    { retry: true },
  );
  const meaning = meaningOf(result);
  if (result.kind !== 'response' || statusVerdict(result.status) !== 'ok') {
    const status = meaning.verdict === 'final' ? 502 : 503;
    const said = result.kind === 'response' ? `answered ${result.status}: ${upstreamMessage(result.body)}` : result.message;
    // Nothing recorded: the reversal is not applied (or not known to be); sending it again is safe (same key).
    return {
      refusal: {
        status,
        message: `the Quest Points Service did not apply the reversal (${said}); send it again`,
        ...(status === 503 ? { retryAfter: 1 } : {}),
      },
    };
  }
  const draft: LedgerDraft = {
    at: Date.now(),
    outcome: 'reversed',
    player: original.player,
    questId,
    serviceUserId: original.serviceUserId,
    eventName: original.eventName,
    eventPoints,
    key: reversalKey,
    reverses: key,
    by: request.by,
    status: result.status,
    requestId: request.requestId,
  };
  ledger.record(draft);
  // In the store before the answer: a second reversal of this award (here or on another relay) finds it.
  await ledger.flush();
  return { key: reversalKey, reverses: key, eventPoints };
}
