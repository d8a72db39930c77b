// One award's decision as the ledger records it: the pipeline hands its step and what it means (outcome.ts), this
// says which outcome that is. By verdict: ok -> acknowledged, final -> refused (the relay's rule or the service's
// answer), anything the client sends again (retry, a limit, the service away) -> failed. A replay from the
// idempotency record is not a new decision: its acknowledgement is already in the ledger.
import { DEFAULT_EVENT_NAME } from '../../protocol/index.js';
import type { RelayRuntime } from '../context.js';
import type { Meaning } from '../outcome.js';
import type { AwardInput, AwardRequest, Step } from '../pipeline.js';
import type { LedgerDraft, LedgerOutcome } from './contract.js';

/** The entry of an award at this point: forwarded (about to be sent), or its decision. */
export function awardDraft(runtime: RelayRuntime, request: AwardRequest, award: AwardInput, outcome: LedgerOutcome, status?: number): LedgerDraft {
  const { sub } = request.claims;
  return {
    at: Date.now(),
    outcome,
    player: sub,
    questId: award.questId,
    serviceUserId: award.serviceUserId,
    eventName: award.eventName ?? DEFAULT_EVENT_NAME,
    eventPoints: award.eventPoints,
    ...(award.idempotencyKey !== undefined ? { key: runtime.upstreamKey(sub, award.idempotencyKey) } : {}),
    ...(status !== undefined ? { status } : {}),
    requestId: request.requestId,
  };
}

/** Record one award's decision in the ledger (when the relay has one): the pipeline's one call per settled award. */
export function recordDecision(runtime: RelayRuntime, request: AwardRequest, award: AwardInput, step: Step, meaning: Meaning): void {
  const { ledger } = runtime;
  if (!ledger || step.kind === 'replayed') return;
  const status = 'status' in meaning ? meaning.status : step.kind === 'answered' && step.result.kind === 'response' ? step.result.status : undefined;
  const outcome: LedgerOutcome = meaning.verdict === 'ok' ? 'acknowledged' : meaning.verdict === 'final' ? 'refused' : 'failed';
  const draft = awardDraft(runtime, request, award, outcome, status);
  if (step.kind === 'refused') {
    const { code, rule } = step.refusal as { code?: string; rule?: string };
    if (code !== undefined) draft.code = code;
    if (rule !== undefined) draft.rule = rule;
  }
  ledger.record(draft);
}

/** Record that an award passed every rule and is being sent to the service. */
export function recordForwarded(runtime: RelayRuntime, request: AwardRequest, award: AwardInput): void {
  runtime.ledger?.record(awardDraft(runtime, request, award, 'forwarded'));
}
