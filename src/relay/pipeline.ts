// The one award pipeline, for the single route (an award alone) and the batch route (up to 100) alike:
//   1. access, once per award, before anything queues: the quest is served and the caller may award this player;
//   2. the player's turn (one player's awards reach the service one after another, in request order);
//   3. in the turn: the points policy, the economy's plan (economy/step.ts: ban, campaign, validate()), the per-player
//      limit (with the idempotency record's lookup beside it), the record's answer, the economy's reservation, or the
//      service (whose final refusal releases the reservation);
//   4. what it means (outcome.ts), counted once in the metrics.
// A player's award that comes back retry holds the player's later awards of the request (sent now, they would land
// before it and the history would be out of award order).
import pLimit from 'p-limit';
import { orAbort, type AnySignal } from '../kit/signal.js';
import { paths, statusVerdict, type AwardBody } from '../protocol/index.js';
import { checkUserAccess } from './access.js';
import type { VerifiedClaims } from './claims.js';
import type { RelayRuntime } from './context.js';
import { createDeadline, type Cancellation } from './deadline.js';
import { planFor, reserve, settle } from './economy/step.js';
import type { ReserveAnswer } from './economy/store.js';
import { recordDecision, recordForwarded } from './economy/decision.js';
import { labelOf, meaningOf, meaningOfRefusal, type Meaning } from './outcome.js';
import { checkPolicyPoints, checkPolicyQuest, type Refusal } from './policy.js';
import { checkRateLimit } from './rate-limit.js';
import { encodeRecord, fingerprintOf, readRecord, recordKey } from './records.js';
import type { UpstreamResult } from './upstream.js';

/** One award as a route hands it over: the spec's body, its quest, and the client's key when it sent one. */
export interface AwardInput extends AwardBody {
  questId: string;
  /** The client's key; the service (and the record) see the player's derived key (keys.ts). */
  idempotencyKey?: string | undefined;
  /** A once-only achievement's key (the relay's own field: never sent to the service). */
  onceKey?: string | undefined;
}

/** Where one award ended. */
export type Step =
  /** The relay's own refusal: access, policy, a rate limit, the record (same key, other award). */
  | { kind: 'refused'; refusal: Refusal }
  /** The service answered (or did not: a failure). */
  | { kind: 'answered'; result: UpstreamResult }
  /** Answered from the idempotency record, the service not called. */
  | { kind: 'replayed'; status: number }
  /** Too many players waiting at this instance. */
  | { kind: 'busy' }
  /** Not sent: an earlier award of the same player in this request came back retry. */
  | { kind: 'held' };

/** One award's step and what it means. An award with none was not done by the deadline (or the client left). */
export interface Settled {
  step: Step;
  meaning: Meaning;
}

/** Who asks, and what says the client went away (the request's signal, or on Node the response's 'close'). */
export interface AwardRequest {
  claims: VerifiedClaims;
  requestId: string;
  signal?: Cancellation | undefined;
  /** The single route (one award): its answer waits for the service's own cancellation at the deadline. */
  single?: boolean;
}

const BUSY: Settled = {
  step: { kind: 'busy' },
  meaning: {
    verdict: 'retry',
    reason: 'relay_busy',
    status: 503,
    retryAfter: 1,
    message: 'too many players waiting at this relay instance; retry shortly',
  },
};
const HELD: Settled = {
  step: { kind: 'held' },
  meaning: { verdict: 'retry', reason: 'earlier_award_pending', message: 'an earlier award of this player is pending' },
};

/** The awards of one request, through the pipeline, within the relay's deadline: one entry each, in input order. */
export async function runAwards(runtime: RelayRuntime, request: AwardRequest, awards: readonly AwardInput[]): Promise<(Settled | undefined)[]> {
  const { claims } = request;
  const results: (Settled | undefined)[] = new Array(awards.length);
  const lanes = new Map<string, number[]>();
  const records = runtime.records;
  const recordKeys: (string | undefined)[] = new Array(awards.length);
  for (let index = 0; index < awards.length; index++) {
    const award = awards[index] as AwardInput;
    // Before a turn is taken: nobody queues behind (and so holds up) another player's awards.
    const denied = checkUserAccess(claims, award.questId, award.serviceUserId) ?? checkPolicyQuest(runtime.policy, award.questId);
    if (denied) {
      results[index] = count(runtime, { kind: 'refused', refusal: denied }, request, award);
      continue;
    }
    if (records && award.idempotencyKey !== undefined) recordKeys[index] = recordKey(runtime.upstreamKey(claims.sub, award.idempotencyKey));
    const lane = lanes.get(award.serviceUserId);
    if (lane) lane.push(index);
    else lanes.set(award.serviceUserId, [index]);
  }
  if (lanes.size === 0) return results;

  // With the record on, a client that goes away (a phone closing the game mid-request) does not cancel its awards: the
  // relay still sees the service's acknowledgement and records it, so the resend is answered from the record.
  const deadline = createDeadline(runtime.deadlineMs, records ? undefined : request.signal);
  const { signal } = deadline;
  // A batch answers at its deadline; with the record on, its calls to the service already under way run on (to twice
  // the deadline at most) so an acknowledgement that lands after the answer is still recorded: the award was answered
  // `retry`, and its resend, days later perhaps, is answered from the record rather than applied again.
  const sending = records && !request.single ? createDeadline(2 * runtime.deadlineMs) : deadline;
  // A single award whose player's limit is counted in the record's own store (Redis) reads its record with that hit.
  const sameStore = records?.store.getWithHit !== undefined && (runtime.store as { records?: unknown }).records === records.store;
  const withHit = !!(request.single && claims.role !== 'admin' && runtime.policy.rateLimits.perPlayer && sameStore);
  const job: Job = { runtime, request, awards, results, signal, sendSignal: sending.signal, sendAt: sending.at, recordKeys, withHit };
  if (request.single) {
    // The single route: the turn and the service both stop at the signal, so this ends by the deadline with what the
    // service did, or did not, answer (a 504 that says which).
    const [player, lane] = lanes.entries().next().value as [string, number[]];
    await runLane(job, player, lane);
  } else {
    // A batch answers at its deadline whatever is still running: those awards are `retry` (reason `deadline`).
    const limit = pLimit(runtime.batchConcurrency);
    const all = Promise.all([...lanes].map(([player, lane]) => limit(() => runLane(job, player, lane))));
    if (sending !== deadline) void all.finally(() => sending.dispose());
    await orAbort(all, signal);
  }
  deadline.dispose();
  // What the client is told, as it stands now: lanes still running past a batch's deadline change nothing of it.
  return results.slice();
}

/** The record store failed under onStoreError 'closed': the award is sent again later, never sent or acknowledged unrecorded. */
const RECORDS_UNAVAILABLE: Refusal = {
  status: 503,
  message: 'idempotency record store unavailable; try again shortly',
  retryAfter: 1,
  reason: 'records_unavailable',
};

interface Job {
  runtime: RelayRuntime;
  request: AwardRequest;
  awards: readonly AwardInput[];
  results: (Settled | undefined)[];
  /** The answer's deadline: no turn is taken and no award started after it. */
  signal: AnySignal;
  /** What stops a call to the service (the answer's deadline, or later for a batch with the record on). */
  sendSignal: AnySignal;
  sendAt: number;
  /** Each award's record key (with the record on and a client key). */
  recordKeys: (string | undefined)[];
  /** Read the record with the per-player hit (getWithHit) instead of a lookup. */
  withHit: boolean;
}

/** A lane's record lookup: each key's stored record, or 'failed' (the store failed under onStoreError 'closed'). */
type Lookup = Promise<Map<string, string | undefined> | 'failed'>;

async function runLane(job: Job, player: string, lane: number[]): Promise<void> {
  const { runtime, results, signal, request } = job;
  const { records } = runtime;
  if (signal.aborted) return;
  const turn = await runtime.players.acquire(player, signal);
  if (turn === 'cancelled') return;
  if (turn === 'busy') {
    for (const index of lane) results[index] = BUSY;
    return;
  }
  const recording: Promise<void>[] = [];
  try {
    // Read in the turn, beside the first award's limit: a duplicate that waited behind an earlier request of this
    // player reads what that one recorded (across instances, the service's own memory of a fresh key covers it).
    const keys = job.withHit ? [] : lane.flatMap((index) => job.recordKeys[index] ?? []);
    const lookup: Lookup | undefined =
      records && keys.length
        ? records.store.get(keys, request.claims.sub).then(
            (values) => new Map(keys.map((key, i) => [key, values[i]])),
            (error) => {
              records.failed('read', error);
              return runtime.onStoreError === 'open' ? new Map() : 'failed';
            },
          )
        : undefined;
    let held = false;
    for (const index of lane) {
      if (signal.aborted) break;
      if (held) {
        results[index] = HELD;
        continue;
      }
      const [step, write] = await runOne(job, index, job.awards[index] as AwardInput, lookup);
      const settled = count(runtime, step, request, job.awards[index] as AwardInput);
      held = settled.meaning.verdict === 'retry' || settled.meaning.verdict === 'auth';
      if (!write || !records) {
        results[index] = settled;
        continue;
      }
      // Written before the answer: an award a client is told is done is in the record. Issued at once, beside the
      // next award's call; the turn is held until it is written, so this player's next request reads it.
      recording.push(
        records.store.set([write], records.ttlMs, request.claims.sub).then(
          () => {
            results[index] = settled;
          },
          (error) => {
            records.failed('write', error);
            // 'closed': not acknowledged unrecorded; the resend finds the service's own memory of the key still fresh.
            results[index] =
              runtime.onStoreError === 'open'
                ? settled
                : { step: { kind: 'refused', refusal: RECORDS_UNAVAILABLE }, meaning: meaningOfRefusal(RECORDS_UNAVAILABLE) };
          },
        ),
      );
    }
    await Promise.all(recording);
  } finally {
    turn.release();
  }
}

/** One award in its player's turn: points policy, per-player limit and record, then the service; and what to record. */
async function runOne(job: Job, index: number, award: AwardInput, lookup: Lookup | undefined): Promise<[Step, [string, string]?]> {
  const { runtime, request } = job;
  const { claims } = request;
  const refusal = checkPolicyPoints(runtime.policy, award);
  if (refusal) return [{ kind: 'refused', refusal }];
  // Only the spec's fields go to the service; eventName only when given, so the service's default applies.
  const body: AwardBody = { serviceUserId: award.serviceUserId, eventPoints: award.eventPoints };
  if (award.eventName !== undefined) body.eventName = award.eventName;
  if (award.eventDescription !== undefined) body.eventDescription = award.eventDescription;
  const idempotencyKey = award.idempotencyKey === undefined ? undefined : runtime.upstreamKey(claims.sub, award.idempotencyKey);
  // The economy's plan (admins are exempt): a ban, a campaign or validate() refuses here; else what to reserve.
  const { economy } = runtime;
  const plan = economy && (await planFor(economy, runtime.policy, claims, award, idempotencyKey, request.requestId, job.signal));
  if (plan && 'refusal' in plan) return [{ kind: 'refused', refusal: plan.refusal }];
  // Admins are operators' tools (designer console, back office): the per-player limit is for players.
  const key = job.recordKeys[index];
  let limited: Refusal | null;
  let stored: string | undefined | 'failed';
  const { records } = runtime;
  // Reserved in the limiter's own script when the store folds it in (Redis): no round trip more.
  const folded = plan && job.withHit && economy?.store.folds === records?.store ? { answer: undefined as ReserveAnswer | undefined } : undefined;
  if (job.withHit && records?.store.getWithHit) {
    // One round trip: the hit and the record (a failed one is the limiter's store error, and no record).
    const getWithHit = records.store.getWithHit.bind(records.store, key === undefined ? [] : [key]);
    const perPlayer = runtime.policy.rateLimits.perPlayer;
    limited = await checkRateLimit(runtime, perPlayer, 'perPlayer', claims.sub, async (counter, windowMs) => {
      const reserving = folded && plan && perPlayer ? { reservation: plan.reservation, limit: perPlayer.limit } : undefined;
      const read = await getWithHit(counter, windowMs, claims.sub, reserving).catch((error) => {
        records.failed('read', error);
        throw error;
      });
      stored = read.records[0];
      if (folded) folded.answer = read.economy;
      return read.hit;
    });
  } else {
    const limiting = claims.role === 'admin' ? null : checkRateLimit(runtime, runtime.policy.rateLimits.perPlayer, 'perPlayer', claims.sub);
    const reading = key === undefined ? undefined : lookup?.then((found) => (found === 'failed' ? found : found.get(key)));
    [limited, stored] = await Promise.all([limiting, reading]);
  }
  if (limited) return [{ kind: 'refused', refusal: limited }];
  if (stored === 'failed') return [{ kind: 'refused', refusal: RECORDS_UNAVAILABLE }];
  const fingerprint = key === undefined ? undefined : fingerprintOf(award.questId, body);
  if (fingerprint !== undefined) {
    const recorded = readRecord(stored, fingerprint);
    if (recorded) return [recorded.kind === 'replay' ? { kind: 'replayed', status: recorded.status } : recorded];
  }
  if (plan) {
    const refused = await reserve(economy as NonNullable<typeof economy>, runtime.policy, plan, award, folded, runtime.onStoreError);
    if (refused) return [{ kind: 'refused', refusal: refused }];
  }
  recordForwarded(runtime, request, award);
  const result = await runtime.upstream.send(
    {
      method: 'POST',
      path: paths.points(award.questId),
      body,
      idempotencyKey,
      requestId: request.requestId,
      signal: job.sendSignal,
      signalAt: job.sendAt,
    },
    { retry: true },
  );
  // A final refusal of the service releases the reservation (the award counts nowhere); an unknown outcome keeps it.
  if (plan) await settle(economy as NonNullable<typeof economy>, plan, result).catch(() => undefined);
  const step: Step = { kind: 'answered', result };
  if (key !== undefined && fingerprint !== undefined && result.kind === 'response' && statusVerdict(result.status) === 'ok') {
    return [step, [key, encodeRecord(fingerprint, result.status)]];
  }
  return [step];
}

/** What the step means, counted once in the metrics and recorded once in the ledger. */
function count(runtime: RelayRuntime, step: Step, request: AwardRequest, award: AwardInput): Settled {
  const meaning: Meaning =
    step.kind === 'answered'
      ? meaningOf(step.result)
      : step.kind === 'refused'
        ? meaningOfRefusal(step.refusal)
        : { verdict: 'ok', status: step.kind === 'replayed' ? step.status : 200 };
  runtime.metrics.award(labelOf(meaning, step.kind === 'refused'));
  recordDecision(runtime, request, award, step, meaning);
  return { step, meaning };
}
