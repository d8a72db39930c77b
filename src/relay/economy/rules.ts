// The economy rules of a policy, as the operator writes them (valibot, checked at startup with the rest of the policy:
// unknown keys refused) and as the relay compiles them once: budgets, once-only events, cooldowns, campaign windows,
// bans. policy.ts spreads these schemas into the policy; plan.ts turns one award into what the store must check.
import * as v from 'valibot';
import { QuestIdSchema } from '../../protocol/index.js';
import type { ObjectOutput } from '../../protocol/infer.js';

const positive = v.pipe(v.number('must be a number'), v.finite('must be a finite number'), v.gtValue(0, 'must be greater than 0'));
const positiveInteger = v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'));

/** The keys an event's rule gains from the economy (policy.ts EventRuleEntriesSchema spreads them). */
export const EconomyEventEntries = {
  /** The event counts once per player and quest (and onceKey, when the award sends one); a second is refused `once`. */
  once: v.optional(v.boolean('must be a boolean')),
  /** Minimum seconds between two awards of this event for one player in one quest; sooner is refused `cooldown`. */
  cooldownSeconds: v.optional(positive),
} as const;

/** Calendar windows a budget may count over. */
export const CALENDAR_WINDOWS = ['minute', 'hour', 'day', 'week', 'month'] as const;
/** One calendar window: weeks start on Monday, in the budget's time zone. */
export type CalendarWindow = (typeof CALENDAR_WINDOWS)[number];

/** Is this an IANA time zone the runtime knows (Intl)? */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const BudgetEntries = v.strictObject(
  {
    /** Most points one player may receive over the window (absolute points of positive awards). */
    points: positive,
    /** A calendar window in `timeZone`; exactly one of window and rollingSeconds. */
    window: v.optional(v.picklist(CALENDAR_WINDOWS, `must be one of ${CALENDAR_WINDOWS.join(', ')}`)),
    /** IANA time zone of a calendar window; default 'UTC'. */
    timeZone: v.optional(v.pipe(v.string('must be a string'), v.check(isTimeZone, 'must be an IANA time zone (e.g. Europe/Paris)'))),
    /** A rolling window of this many seconds (the points of the last N seconds); exactly one of window and rollingSeconds. */
    rollingSeconds: v.optional(positiveInteger),
    /** Only awards of this event count (absent: every event). */
    event: v.optional(v.string('must be a string')),
    /** Only awards of this quest count (absent: every quest). */
    quest: v.optional(QuestIdSchema),
    /** The rule's name in refusals and the ledger; default `budgets[<index>]`. */
    name: v.optional(v.pipe(v.string('must be a string'), v.regex(/^[\w.-]{1,64}$/, 'must be 1-64 letters, digits, _ . or -'))),
  },
  'must be an object with points and window or rollingSeconds',
);

/** One budget: at most `points` per player over a calendar window (in a time zone) or a rolling one. */
export interface BudgetRule extends ObjectOutput<typeof BudgetEntries> {}

/** One entry of a policy's `budgets`. */
export const BudgetSchema = v.pipe(
  BudgetEntries,
  v.check<BudgetRule, string>(
    (rule) => (rule.window === undefined) !== (rule.rollingSeconds === undefined),
    'must set exactly one of window and rollingSeconds',
  ),
  v.check<BudgetRule, string>((rule) => rule.timeZone === undefined || rule.window !== undefined, 'timeZone applies to a calendar window only'),
);

/** ISO 8601 with an explicit offset (Z or ±hh:mm): a campaign's bound is an instant, not a wall-clock time. */
const instant = v.pipe(
  v.string('must be a string'),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/, 'must be an ISO 8601 time with an offset (2026-06-01T00:00:00Z)'),
  v.check((text) => !Number.isNaN(Date.parse(text)), 'must be a valid time'),
);

const CampaignEntries = v.strictObject(
  {
    /** Awards before this instant are refused `campaign`. */
    startsAt: v.optional(instant),
    /** Awards from this instant on are refused `campaign`. */
    endsAt: v.optional(instant),
  },
  'must be an object with startsAt and/or endsAt',
);

/** A quest's campaign window: awards are accepted from `startsAt` (inclusive) to `endsAt` (exclusive). */
export interface CampaignRule extends ObjectOutput<typeof CampaignEntries> {}

/** One entry of a policy's `campaigns`. */
export const CampaignSchema = v.pipe(
  CampaignEntries,
  v.check<CampaignRule, string>((rule) => rule.startsAt !== undefined || rule.endsAt !== undefined, 'must set startsAt and/or endsAt'),
  v.check<CampaignRule, string>(
    (rule) => rule.startsAt === undefined || rule.endsAt === undefined || Date.parse(rule.startsAt) < Date.parse(rule.endsAt),
    'startsAt must be before endsAt',
  ),
);

/** The economy's top-level policy keys (policy.ts RelayPolicySchema spreads them). */
export const EconomyPolicyEntries = {
  /** Points per player over a window, for every award or those of one event and/or quest. */
  budgets: v.optional(v.array(BudgetSchema, 'must be an array of budgets'), []),
  /** Campaign windows per quest id. */
  campaigns: v.optional(v.record(QuestIdSchema, CampaignSchema, 'must be an object of campaign windows by quest id'), {}),
  /** Player subjects (the token's `sub`) refused outright (403 `banned`); runtime bans come from the admin API. */
  bans: v.optional(v.array(v.string('must be a string'), 'must be an array of player subs'), []),
} as const;
