// The pipeline's one economy step (pipeline.ts calls these three, nothing else of the folder):
//   planFor     before the per-player limit: static ban, campaign window, the operator's validate() hook, and the
//               reservation the store will check;
//   reserve     the store's atomic check-and-reserve (Redis folds it into the limiter's script: no extra round trip);
//   settle      after the service answered: a final refusal (4xx) releases the reservation; an unknown outcome (timeout,
//               5xx) keeps it, since the service may have applied the award and its resend reuses it by key.
// Admin tokens (operators' tools: designer console, back office) are exempt, like the per-player limit.
import { ABORTED, type AnySignal, orAbort } from '../../kit/signal.js';
import { statusVerdict } from '../../protocol/index.js';
import type { VerifiedClaims } from '../claims.js';
import type { Refusal, ResolvedPolicy } from '../policy.js';
import type { UpstreamResult } from '../upstream.js';
import type { BanList } from './contract.js';
import { type EconomyAward, hasStoreRules, type Plan, planAward, refusalOfAnswer, type WindowCache } from './plan.js';
import type { EconomyStore, ReserveAnswer } from './store.js';

/** The award as the operator's validate() hook sees it. */
export interface ValidateAward extends EconomyAward {
  serviceUserId: string;
  eventDescription?: string | undefined;
}

/** What validate() is told besides the award. */
export interface ValidateContext {
  /** The token's subject. */
  player: string;
  requestId: string;
  /** Fires at the request's deadline: the hook's answer is not waited for past it. */
  signal: AbortSignal;
}

/**
 * RelayOptions `validate`: a server-authoritative check (ask the game's own server). Resolve nothing to let the award
 * through, `{ refuse: 'why' }` to refuse it for good (422, code `policy`). Throwing, or not answering by the request's
 * deadline, answers the award retry (503 `validate_unavailable`): it is held and sent again, never accepted unchecked.
 */
export type ValidateHook = (
  award: ValidateAward,
  context: ValidateContext,
) => Promise<undefined | { refuse: string }> | undefined | { refuse: string };

/** runtime.economy: the store, its runtime bans (the admin routes use them), and what the rules need per award. */
export interface RelayEconomy {
  store: EconomyStore;
  /** Runtime bans, shared by every relay on the same store (admin API: ban, unban, list). */
  bans: BanList;
  /** The policy holds once, cooldown or budget rules (otherwise only the runtime ban is asked of the store). */
  storeRules: boolean;
  windows: WindowCache;
  validate?: ValidateHook | undefined;
  now: () => number;
}

/** The runtime's economy from the policy and options (app.ts). */
export function createEconomy(policy: ResolvedPolicy, store: EconomyStore, validate?: ValidateHook, now: () => number = Date.now): RelayEconomy {
  return { store, bans: store.bans, storeRules: hasStoreRules(policy), windows: new Map(), validate, now };
}

/** The validate() hook's failure: held and retried, never accepted unchecked. */
const VALIDATE_UNAVAILABLE: Refusal = {
  status: 503,
  message: "the operator's validate() check failed or did not answer in time; retry shortly",
  retryAfter: 1,
  reason: 'validate_unavailable',
};

/** A planned award: the reservation to make (its id the award's upstream key, or a fresh one). */
export type Planned = Extract<Plan, { reservation: unknown }>;

/**
 * Before the award's limit and record: a refusal (ban, campaign, validate), the plan to reserve, or undefined when
 * the economy does not apply (an admin).
 */
export async function planFor(
  economy: RelayEconomy,
  policy: ResolvedPolicy,
  claims: VerifiedClaims,
  award: ValidateAward,
  upstreamKey: string | undefined,
  requestId: string,
  signal: AnySignal,
): Promise<{ refusal: Refusal } | Planned | undefined> {
  if (claims.role === 'admin') return undefined;
  const plan = planAward(policy, economy.windows, award, claims.sub, upstreamKey ?? `fresh:${crypto.randomUUID()}`, economy.now());
  if ('refusal' in plan || !economy.validate) return plan;
  const context: ValidateContext = { player: claims.sub, requestId, signal: 'subscribe' in signal ? signal.signal : signal };
  let verdict: Awaited<ReturnType<ValidateHook>> | typeof ABORTED;
  try {
    verdict = await orAbort(Promise.resolve(economy.validate(award, context)), signal);
  } catch {
    return { refusal: VALIDATE_UNAVAILABLE };
  }
  if (verdict === ABORTED) return { refusal: VALIDATE_UNAVAILABLE };
  if (verdict && typeof verdict.refuse === 'string') {
    return { refusal: { status: 422, message: `refused by the operator's validate(): ${verdict.refuse}`, code: 'policy', rule: 'validate' } };
  }
  return plan;
}

/** The store failed (or a folded reservation did not come back): held and retried, never sent unchecked. */
const ECONOMY_UNAVAILABLE: Refusal = {
  status: 503,
  message: 'economy store unavailable; try again shortly',
  retryAfter: 1,
  reason: 'economy_unavailable',
};

/**
 * Check and reserve: the answer the limiter's script already brought (`folded`, when the store folds it in), or the
 * store's own call. A refusal (the rule named), 503 when the store failed, or null: reserved, send it.
 */
export async function reserve(
  economy: RelayEconomy,
  policy: ResolvedPolicy,
  plan: Planned,
  award: EconomyAward,
  folded: { answer: ReserveAnswer | undefined } | undefined,
): Promise<Refusal | null> {
  let answer: ReserveAnswer | undefined;
  try {
    // The script skips the economy when it found a record; one that then did not answer the award reserves here.
    answer = folded?.answer ?? (await economy.store.reserve(plan.reservation));
  } catch {
    answer = undefined;
  }
  return answer ? refusalOfAnswer(policy, plan, answer, award) : ECONOMY_UNAVAILABLE;
}

/** After the service's answer: a final refusal releases what the award reserved; anything unknown keeps it. */
export async function settle(economy: RelayEconomy, plan: Planned, result: UpstreamResult): Promise<void> {
  if (result.kind !== 'response' || result.status < 400 || result.status >= 500 || statusVerdict(result.status) === 'retry') return;
  await economy.store.release({ ...plan.reservation, now: economy.now() });
}
