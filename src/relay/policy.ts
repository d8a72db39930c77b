import * as v from 'valibot';
import type { ObjectInput, ObjectOutput } from '../protocol/infer.js';
import { ConfigError } from '../kit/errors.js';
import { BATCH_MAX_AWARDS, DEFAULT_EVENT_NAME, formatIssues, POINTS_DECIMALS, QuestIdSchema } from '../protocol/index.js';
import type { RefusalCode } from '../protocol/refusal.js';
import { type BudgetRule, type CampaignRule, EconomyEventEntries, EconomyPolicyEntries } from './economy/rules.js';

const positive = v.pipe(v.number('must be a number'), v.finite('must be a finite number'), v.gtValue(0, 'must be greater than 0'));
const positiveInteger = v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'));

/** One event's rule in a policy's `events`, before the check that it sets points or maxPoints, not both. */
export const EventRuleEntriesSchema = v.strictObject(
  {
    /** The only amount this event may award (an award with another amount is refused, never rewritten). */
    points: v.optional(v.pipe(v.number('must be a number'), v.finite('must be a finite number'))),
    /** The most one award of this event may carry (for negative events: the largest magnitude). */
    maxPoints: v.optional(positive),
    /** Negative amounts (corrections, penalties) are refused unless this is true. */
    allowNegative: v.optional(v.boolean('must be a boolean')),
    ...EconomyEventEntries,
  },
  'must be an object with points, maxPoints, allowNegative, once or cooldownSeconds',
);

// Interfaces over the schemas' entries (protocol/infer.ts), so that each key is documented once.
// test/relay/policy.test.ts checks that every one of these is valibot's inferred type exactly.
/** One event's rule: a fixed amount or a cap, and whether negative amounts are allowed. */
export interface EventRule extends ObjectOutput<typeof EventRuleEntriesSchema> {}

/** One event's rule in a policy's `events`. */
export const EventRuleSchema = v.pipe(
  EventRuleEntriesSchema,
  // Typed with the interface: inferred, the check's type argument would declare the rule's keys a second time.
  v.check<EventRule, string>((rule) => rule.points === undefined || rule.maxPoints === undefined, 'must set points or maxPoints, not both'),
);

/** One rate limit: at most `limit` hits in each fixed window of `windowSeconds`. */
export const RateLimitSchema = v.strictObject({ limit: positiveInteger, windowSeconds: positive }, 'must be an object with limit and windowSeconds');

/** A policy's `rateLimits`. */
export const RateLimitsSchema = v.strictObject(
  {
    /** Awards per player token `sub` (admins are exempt). */
    perPlayer: v.optional(RateLimitSchema),
    /** Requests per client IP, every route. */
    perIp: v.optional(RateLimitSchema),
  },
  'must be an object with perPlayer and/or perIp',
);

/** The operator's award policy: what the browser may ask for. Unknown keys are refused so a typo cannot loosen it. */
export const RelayPolicySchema = v.strictObject(
  {
    /** Quests the relay serves at all; absent -> any quest. */
    quests: v.optional(v.array(QuestIdSchema, 'must be an array of quest ids')),
    events: v.optional(v.record(v.string(), EventRuleSchema, 'must be an object of event rules'), {}),
    /** Events with no rule are refused unless this is true (they still obey the cap and sign rules). */
    allowUnknownEvents: v.optional(v.boolean('must be a boolean'), false),
    /** Cap on any single award's magnitude, whatever the event. */
    maxPointsPerAward: v.optional(positive),
    rateLimits: v.optional(RateLimitsSchema, {}),
    // The economy's rules (economy/rules.ts): budgets, campaigns, bans.
    ...EconomyPolicyEntries,
  },
  'policy must be a JSON object',
);

// `events` and `rateLimits` are restated with the named interfaces: inferred, their rules' keys would be declared
// twice again.
/** One rate limit: at most `limit` hits in each fixed window of `windowSeconds`. */
export interface RateLimitRule extends ObjectOutput<typeof RateLimitSchema> {}
/** A policy's `rateLimits`: per player, per client IP, or both. */
export interface RateLimits extends ObjectOutput<typeof RateLimitsSchema> {}
/** The award policy as an operator writes it (RelayPolicySchema's input: every key optional). */
export interface RelayPolicy extends Omit<ObjectInput<typeof RelayPolicySchema>, 'events' | 'rateLimits' | 'budgets' | 'campaigns'> {
  /** Rules per eventName; an award without eventName is the service's DefaultPointsEvent. Default: none. */
  events?: Record<string, EventRule>;
  /** Rate limits per player and per client IP. Default: none (DEFAULT_POLICY sets both). */
  rateLimits?: RateLimits;
  /** Points per player over a window, for every award or those of one event and/or quest. Default: none. */
  budgets?: BudgetRule[];
  /** Campaign windows per quest id. Default: none. */
  campaigns?: Record<string, CampaignRule>;
}
/** The award policy once resolvePolicy has checked it, its defaults filled in. */
export interface ResolvedPolicy extends Omit<ObjectOutput<typeof RelayPolicySchema>, 'events' | 'rateLimits' | 'budgets' | 'campaigns'> {
  /** Rules per eventName; an award without eventName is the service's DefaultPointsEvent. */
  events: Record<string, EventRule>;
  /** Rate limits per player and per client IP (an empty object: none). */
  rateLimits: RateLimits;
  /** Points per player over a window (an empty array: none). */
  budgets: BudgetRule[];
  /** Campaign windows per quest id (an empty object: none). */
  campaigns: Record<string, CampaignRule>;
}

/**
 * The policy when the operator gives none: bounded and closed. Only the service's default event, 1 to 100
 * points per award, no negatives, 200 awards a minute per player, 600 requests a minute per IP.
 *
 * The per-player limit counts awards (a batch of 100 is 100 hits, resends answered from the record included): it is
 * two of the SDK's full batches (BATCH_MAX_AWARDS), so a player back from a long offline spell sends a full batch and,
 * should its acknowledgement be lost, the same batch again, without a 429; a third full batch in the minute waits.
 */
export const DEFAULT_POLICY: RelayPolicy = {
  events: { [DEFAULT_EVENT_NAME]: { maxPoints: 100 } },
  allowUnknownEvents: false,
  maxPointsPerAward: 100,
  rateLimits: {
    perPlayer: { limit: 2 * BATCH_MAX_AWARDS, windowSeconds: 60 },
    perIp: { limit: 600, windowSeconds: 60 },
  },
};

/** Validate a policy object or read and validate a JSON file; throws an Error naming the field and rule. */
export function resolvePolicy(policy: RelayPolicy | string | undefined): ResolvedPolicy {
  const source = typeof policy === 'string' ? `policy file ${policy}` : 'policy';
  const input = typeof policy === 'string' ? readPolicyFile(policy) : (policy ?? DEFAULT_POLICY);
  const result = v.safeParse(RelayPolicySchema, input);
  if (!result.success) throw new ConfigError('policy', 'invalid', `${source}: ${formatIssues(result.issues)}`);
  return result.output;
}

function readPolicyFile(file: string): unknown {
  // getBuiltinModule keeps this module importable on Workers/Deno/Bun, where a path makes no sense anyway.
  const fs = globalThis.process?.getBuiltinModule?.('node:fs') as typeof import('node:fs') | undefined;
  if (!fs) throw new ConfigError('policy', 'invalid', 'a policy file path needs Node.js; pass the policy as an object instead');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('policy', 'invalid', `policy file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError('policy', 'invalid', `policy file ${file}: is not valid JSON`);
  }
}

/**
 * A refusal: the HTTP status and a message that names the rule. The one carrier of every refusal the relay makes;
 * respond.ts `fail()` is the one place that writes it (the error body, and the reason the access log names).
 */
export interface Refusal {
  status: number;
  message: string;
  /**
   * Whose refusal it is (protocol/refusal.ts REFUSAL_CODES), in the error body and a batch's rejected result: every
   * final refusal of the relay's own carries one. Absent on what is not final (401, 429, 503) and on the service's
   * refusals passed through.
   */
  code?: RefusalCode;
  retryAfter?: number;
  /** A batch's retry reason when a retryable status is the relay's own doing, not the service's. */
  reason?: string;
  /** The economy rule that refused, as the policy names it (`budgets[0]`, `events.first-win.once`): for the ledger. */
  rule?: string;
}

/** Is this quest served at all? (403: the caller may not act there.) */
export function checkPolicyQuest(policy: ResolvedPolicy, questId: string): Refusal | null {
  if (policy.quests && !policy.quests.includes(questId)) {
    return { status: 403, message: `questId ${JSON.stringify(questId)} is not in policy quests`, code: 'policy' };
  }
  return null;
}

/** The points rules, in order; 422 naming the rule. Amounts are never rewritten. */
export function checkPolicyPoints(policy: ResolvedPolicy, award: { eventName?: string | undefined; eventPoints: number }): Refusal | null {
  const refuse = (message: string): Refusal => ({ status: 422, message, code: 'policy' });
  const name = award.eventName ?? DEFAULT_EVENT_NAME;
  const points = award.eventPoints;
  const rule = Object.hasOwn(policy.events, name) ? policy.events[name] : undefined;
  const where = `policy events.${name}`;
  if (!rule && !policy.allowUnknownEvents) {
    return refuse(`eventName ${JSON.stringify(name)} is not in policy events (policy allowUnknownEvents is false)`);
  }
  if (!Number.isFinite(points)) return refuse('eventPoints must be a finite number');
  if (rule?.points !== undefined && points !== rule.points) {
    return refuse(`eventPoints ${points} does not match ${where}.points ${rule.points}`);
  }
  if (points === 0) return refuse('eventPoints 0 is refused: an award must carry points');
  // The service keeps 6 decimal places: an amount that rounds to 0 there (5e-324, -1e-9) would be stored as 0.
  if (Math.round(Math.abs(points) * 10 ** POINTS_DECIMALS) === 0) {
    return refuse(`eventPoints ${points} rounds to 0 at the service's ${POINTS_DECIMALS} decimal places: an award must carry points`);
  }
  if (points < 0 && !rule?.allowNegative) {
    return refuse(`eventPoints ${points} is negative and ${rule ? `${where}.allowNegative` : 'an unknown event'} does not allow negatives`);
  }
  const magnitude = Math.abs(points);
  if (rule?.maxPoints !== undefined && magnitude > rule.maxPoints) {
    return refuse(`eventPoints ${points} exceeds ${where}.maxPoints ${rule.maxPoints}`);
  }
  if (policy.maxPointsPerAward !== undefined && magnitude > policy.maxPointsPerAward) {
    return refuse(`eventPoints ${points} exceeds policy maxPointsPerAward ${policy.maxPointsPerAward}`);
  }
  return null;
}
