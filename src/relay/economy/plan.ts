// One award against the economy rules: what needs no store (a static ban, a campaign window) decided here, and what
// does (runtime ban, once, cooldown, budgets) turned into one Reservation for the store to check and reserve
// atomically. And the store's answer turned into the refusal, naming the rule for the operator.
import { DEFAULT_EVENT_NAME, POINTS_DECIMALS } from '../../protocol/index.js';
import { storeTag } from '../counter-store.js';
import type { Refusal, ResolvedPolicy } from '../policy.js';
import type { BudgetRule } from './rules.js';
import type { BudgetCharge, Reservation, ReserveAnswer } from './store.js';
import { calendarWindow, formatInZone } from './windows.js';

/** The award as the economy reads it. */
export interface EconomyAward {
  questId: string;
  eventName?: string | undefined;
  eventPoints: number;
  /** The game's key of a once-only achievement (onceKey in the award's body): once per player, quest, event and onceKey. */
  onceKey?: string | undefined;
}

/** A plan: refused without a store, or the reservation to ask for and what its refusals say. */
export type Plan = { refusal: Refusal } | { reservation: Reservation; budgets: number[] };

const MICRO = 10 ** POINTS_DECIMALS;
/** Points as integer micro-points: the stores add integers, never floats. */
export const micro = (points: number): number => Math.round(points * MICRO);

/** A key part with `%` and `:` escaped, so `quest:event` never reads as another quest and event. */
const part = (text: string): string => text.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));

/** The rule's name in refusals and the ledger: its `name`, else `budgets[<index>]`. */
export const budgetName = (rule: BudgetRule, index: number): string => rule.name ?? `budgets[${index}]`;

/** Does the policy hold any economy rule the store must check (runtime bans are checked whatever)? */
export function hasStoreRules(policy: ResolvedPolicy): boolean {
  return policy.budgets.length > 0 || Object.values(policy.events).some((rule) => rule.once || rule.cooldownSeconds !== undefined);
}

/** The calendar window of each budget, kept until it ends: Intl is asked once per window, not once per award. */
export type WindowCache = Map<number, { start: number; end: number }>;

/**
 * The plan of one player's award at `now`: a static ban or a campaign window refuses it here; else the reservation,
 * under `id` (the upstream idempotency key, or a fresh id). Amounts are checked by the points policy before this.
 */
export function planAward(policy: ResolvedPolicy, windows: WindowCache, award: EconomyAward, owner: string, id: string, now: number): Plan {
  if (policy.bans.includes(owner)) return { refusal: bannedRefusal('policy bans') };
  const campaign = Object.hasOwn(policy.campaigns, award.questId) ? policy.campaigns[award.questId] : undefined;
  if (campaign) {
    const rule = `campaigns.${award.questId}`;
    if (campaign.startsAt !== undefined && now < Date.parse(campaign.startsAt)) {
      return { refusal: refusal('campaign', rule, `quest ${JSON.stringify(award.questId)} campaign ${rule} starts at ${campaign.startsAt}`) };
    }
    if (campaign.endsAt !== undefined && now >= Date.parse(campaign.endsAt)) {
      return { refusal: refusal('campaign', rule, `quest ${JSON.stringify(award.questId)} campaign ${rule} ended at ${campaign.endsAt}`) };
    }
  }
  const tag = storeTag(owner);
  const event = award.eventName ?? DEFAULT_EVENT_NAME;
  const eventRule = Object.hasOwn(policy.events, event) ? policy.events[event] : undefined;
  const where = `${part(award.questId)}:${part(event)}`;
  const reservation: Reservation = {
    owner,
    id,
    now,
    ban: `qp:ban:${tag}`,
    marker: `qp:eco:res:${tag}:${id}`,
    markerTtlMs: 60_000,
    budgets: [],
  };
  if (eventRule?.once) reservation.once = `qp:eco:once:${tag}:${where}${award.onceKey === undefined ? '' : `:${part(award.onceKey)}`}`;
  if (eventRule?.cooldownSeconds !== undefined) {
    reservation.cooldown = { key: `qp:eco:cool:${tag}:${where}`, ms: Math.ceil(eventRule.cooldownSeconds * 1000) };
    reservation.markerTtlMs = Math.max(reservation.markerTtlMs, reservation.cooldown.ms);
  }
  const budgets: number[] = [];
  // Budgets count the points of positive awards: a correction (negative) neither counts nor is refused.
  if (award.eventPoints > 0) {
    for (const [index, rule] of policy.budgets.entries()) {
      if ((rule.event !== undefined && rule.event !== event) || (rule.quest !== undefined && rule.quest !== award.questId)) continue;
      const name = part(rule.name ?? String(index));
      let charge: BudgetCharge;
      if (rule.rollingSeconds !== undefined) {
        const ms = rule.rollingSeconds * 1000;
        charge = {
          key: `qp:eco:budget:${tag}:${name}:rolling`,
          limit: micro(rule.points),
          points: micro(award.eventPoints),
          rollingMs: ms,
          ttlMs: ms,
        };
      } else {
        let window = windows.get(index);
        if (!window || now < window.start || now >= window.end) {
          window = calendarWindow(rule.window ?? 'day', rule.timeZone ?? 'UTC', now);
          windows.set(index, window);
        }
        // Kept a minute past the window's end: a relay whose clock runs behind still finds it.
        const ttlMs = window.end - now + 60_000;
        charge = { key: `qp:eco:budget:${tag}:${name}:${window.start}`, limit: micro(rule.points), points: micro(award.eventPoints), ttlMs };
      }
      reservation.budgets.push(charge);
      reservation.markerTtlMs = Math.max(reservation.markerTtlMs, charge.ttlMs);
      budgets.push(index);
    }
  }
  return { reservation, budgets };
}

/** The store's refusal as the relay answers it: code, status, and a message naming the rule (the HUD words it for players). */
export function refusalOfAnswer(
  policy: ResolvedPolicy,
  plan: Extract<Plan, { reservation: unknown }>,
  answer: ReserveAnswer,
  award: EconomyAward,
): Refusal | null {
  if (answer.ok) return null;
  const event = award.eventName ?? DEFAULT_EVENT_NAME;
  switch (answer.refused) {
    case 'banned':
      return bannedRefusal('a runtime ban');
    case 'once': {
      const rule = `events.${event}.once`;
      const key = award.onceKey === undefined ? '' : ` and onceKey ${JSON.stringify(award.onceKey)}`;
      return refusal('once', rule, `event ${JSON.stringify(event)}${key} counts once per player and quest (${rule}): already awarded`);
    }
    case 'cooldown': {
      const rule = `events.${event}.cooldownSeconds`;
      const seconds = policy.events[event]?.cooldownSeconds;
      return refusal(
        'cooldown',
        rule,
        `event ${JSON.stringify(event)} is cooling down (${rule} ${seconds} s): next award in ${Math.max(1, Math.ceil(answer.waitMs / 1000))} s`,
      );
    }
    case 'budget': {
      const index = plan.budgets[answer.index] as number;
      const rule = policy.budgets[index] as BudgetRule;
      const name = budgetName(rule, index);
      const scope = [
        rule.event !== undefined ? `event ${JSON.stringify(rule.event)}` : '',
        rule.quest !== undefined ? `quest ${JSON.stringify(rule.quest)}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const per = rule.rollingSeconds !== undefined ? `in any ${rule.rollingSeconds} s` : `per ${rule.window}`;
      const charge = plan.reservation.budgets[answer.index] as BudgetCharge;
      const until =
        rule.rollingSeconds !== undefined
          ? `for the rolling ${rule.rollingSeconds} s`
          : `until ${formatInZone(plan.reservation.now + charge.ttlMs - 60_000, rule.timeZone ?? 'UTC')}`;
      const left = Math.max(0, (charge.limit - answer.used) / MICRO);
      return refusal(
        'budget',
        name,
        `budget ${name} (${rule.points} points ${per}${scope ? `, ${scope}` : ''}) is spent ${until} (${left} left, award of ${award.eventPoints})`,
      );
    }
  }
}

function bannedRefusal(source: string): Refusal {
  return { status: 403, message: `player is banned (${source})`, code: 'banned', rule: 'bans' };
}

function refusal(code: 'once' | 'cooldown' | 'campaign' | 'budget', rule: string, message: string): Refusal {
  return { status: 422, message, code, rule };
}
