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
import { createLru, type Lru } from '../lru.js';
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
  /** Recent "is this player banned" answers for awards with nothing to reserve (banCheck), bounded. */
  banChecks: Lru<string, { at: number; answer: Promise<ReserveAnswer> }>;
  validate?: ValidateHook | undefined;
  /** The clock, ms since the epoch (windows, campaigns, cooldowns). */
  now: () => number;
}

/** The runtime's economy from the policy and options (app.ts). */
export function createEconomy(policy: ResolvedPolicy, store: EconomyStore, validate?: ValidateHook, now: () => number = Date.now): RelayEconomy {
  const banChecks: RelayEconomy['banChecks'] = createLru(10_000);
  // A ban made through this relay holds here at once; other relays' reused answers are at most BAN_CHECK_MS old.
  const bans: BanList = {
    ban: (player, reason) => store.bans.ban(player, reason).finally(() => banChecks.delete(player)),
    unban: (player) => store.bans.unban(player).finally(() => banChecks.delete(player)),
    list: () => store.bans.list(),
  };
  return { store, bans, storeRules: hasStoreRules(policy), windows: new Map(), banChecks, validate, now };
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
  onStoreError: 'open' | 'closed',
): Promise<Refusal | null> {
  const banOnly = isBanOnly(plan);
  let answer: ReserveAnswer | undefined;
  try {
    // The script skips the economy when it found a record; one that then did not answer the award reserves here.
    answer = folded?.answer ?? (await (banOnly ? banCheck(economy, plan) : economy.store.reserve(plan.reservation)));
  } catch {
    answer = undefined;
  }
  if (answer) return refusalOfAnswer(policy, plan, answer, award);
  // A store outage: onStoreError 'open' lets an award with nothing to reserve through (only a runtime ban goes
  // unchecked, as the per-player limit does); a budget, once or cooldown never fails open: the award is held (503).
  return banOnly && onStoreError === 'open' ? null : ECONOMY_UNAVAILABLE;
}

/** Nothing to reserve (no once, cooldown or budget applies to this award): only the runtime ban is asked. */
const isBanOnly = ({ reservation: r }: Planned) => r.once === undefined && !r.cooldown && r.budgets.length === 0;

/**
 * How long a player's "not banned" is reused for awards with nothing to reserve (a batch's, or with the rules off):
 * a batch of 100 asks the store once, not 100 times, and a runtime ban still reaches every relay within a second.
 */
const BAN_CHECK_MS = 500;

/** The runtime ban of a ban-only award, asked of the store at most once per BAN_CHECK_MS per player. */
function banCheck(economy: RelayEconomy, plan: Planned): Promise<ReserveAnswer> {
  const { owner } = plan.reservation;
  const now = economy.now();
  const cached = economy.banChecks.get(owner);
  if (cached && now - cached.at < BAN_CHECK_MS) return cached.answer;
  const answer = economy.store.reserve(plan.reservation);
  economy.banChecks.set(owner, { at: now, answer });
  // A failed check is not reused.
  answer.catch(() => economy.banChecks.delete(owner));
  return answer;
}

/** After the service's answer: a final refusal releases what the award reserved; anything unknown keeps it. */
export async function settle(economy: RelayEconomy, plan: Planned, result: UpstreamResult): Promise<void> {
  if (result.kind !== 'response' || result.status < 400 || result.status >= 500 || statusVerdict(result.status) === 'retry') return;
  await economy.store.release({ ...plan.reservation, now: economy.now() });
}
