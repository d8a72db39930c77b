// One award's decision as the ledger records it: the pipeline hands its step and what it means (outcome.ts), this
// says which outcome that is. By verdict: ok -> acknowledged, final -> refused (the relay's rule or the service's
// answer), anything the client sends again (retry, a limit, the service away) -> failed. A replay from the
// idempotency record is not a new decision: its acknowledgement is already in the ledger.
import { DEFAULT_EVENT_NAME } from '../../protocol/index.js';
import type { RelayRuntime } from '../context.js';
import type { Meaning } from '../outcome.js';
import type { LedgerDraft, LedgerOutcome } from './contract.js';

// Read structurally (the pipeline's AwardInput, AwardRequest and Step are these): the pipeline imports this file.
/** The award, as the pipeline holds it. */
export interface AwardFacts {
  questId: string;
  serviceUserId: string;
  eventName?: string | undefined;
  eventPoints: number;
  /** The client's key (the ledger shows the upstream key derived from it). */
  idempotencyKey?: string | undefined;
}
/** Who asked, in which request. */
export interface Asker {
  claims: { sub: string };
  requestId: string;
}
/** Where the award ended: the relay's refusal (its code and rule), the service's result, a replay... */
export interface SettledStep {
  kind: string;
  refusal?: { code?: string | undefined; rule?: string | undefined };
  result?: { kind: string; status?: number | undefined };
}

/** Each award's upstream key, derived once for its two entries (forwarded, then its decision). */
const derived = new WeakMap<AwardFacts, string>();
const upstreamKeyOf = (runtime: RelayRuntime, sub: string, award: AwardFacts): string => {
  let key = derived.get(award);
  if (key === undefined) {
    key = runtime.upstreamKey(sub, award.idempotencyKey as string);
    derived.set(award, key);
  }
  return key;
};

/** The entry of an award at this point: forwarded (about to be sent), or its decision. */
export function awardDraft(runtime: RelayRuntime, request: Asker, award: AwardFacts, outcome: LedgerOutcome, status?: number): LedgerDraft {
  const { sub } = request.claims;
  return {
    at: Date.now(),
    outcome,
    player: sub,
    questId: award.questId,
    serviceUserId: award.serviceUserId,
    eventName: award.eventName ?? DEFAULT_EVENT_NAME,
    eventPoints: award.eventPoints,
    ...(award.idempotencyKey !== undefined ? { key: upstreamKeyOf(runtime, sub, award) } : {}),
    ...(status !== undefined ? { status } : {}),
    requestId: request.requestId,
  };
}

/** Record one award's decision in the ledger (when the relay has one): the pipeline's one call per settled award. */
export function recordDecision(runtime: RelayRuntime, request: Asker, award: AwardFacts, step: SettledStep, meaning: Meaning): void {
  const { ledger } = runtime;
  if (!ledger || step.kind === 'replayed') return;
  const status = 'status' in meaning ? meaning.status : step.result?.kind === 'response' ? step.result.status : undefined;
  const outcome: LedgerOutcome = meaning.verdict === 'ok' ? 'acknowledged' : meaning.verdict === 'final' ? 'refused' : 'failed';
  const draft = awardDraft(runtime, request, award, outcome, status);
  if (step.kind === 'refused' && step.refusal) {
    const { code, rule } = step.refusal;
    if (code !== undefined) draft.code = code;
    if (rule !== undefined) draft.rule = rule;
  }
  ledger.record(draft);
}

/** Record that an award passed every rule and is being sent to the service. */
export function recordForwarded(runtime: RelayRuntime, request: Asker, award: AwardFacts): void {
  runtime.ledger?.record(awardDraft(runtime, request, award, 'forwarded'));
}
