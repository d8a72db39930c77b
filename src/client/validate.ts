import type { AwardBody } from '../protocol/bodies.js';
import { RELAY_AWARD_RULES, checkRule, ID_RULE, type FieldRule, type RuleTable, type TextRule } from '../protocol/rules.js';
import { QuestPointsError } from './errors.js';
import type { AwardInput } from './types.js';

// Fields are checked one by one with the protocol's rules (protocol/rules.ts): the same steps and messages the
// servers' valibot schemas run, without a validation library in the bundle.

export const invalid = (message: string, field?: string) => new QuestPointsError(message, 'invalid', undefined, field);

/** One field's value, checked; throws naming `path` (and `field`, the top-level key) and the rule. */
export function check(rule: TextRule, value: unknown, path: string, field?: string): string;
export function check(rule: FieldRule, value: unknown, path: string, field?: string): string | number;
export function check(rule: FieldRule, value: unknown, path: string, field = path): string | number {
  const checked = checkRule(rule, value);
  if (checked.ok) return checked.value;
  throw invalid(`${path} ${checked.message}`, field);
}

export type Input = Record<string, unknown>;

/** The fields of a table present in `input` (required ones must be), checked; unknown keys are dropped. */
export function checkFields(fields: RuleTable, input: Input, parent?: string) {
  const out: Input = {};
  for (const [key, { rule, optional }] of Object.entries(fields))
    if (!optional || input[key] !== undefined) out[key] = check(rule, input[key], parent ? `${parent}.${key}` : key, parent);
  return out;
}

/**
 * The award as it is queued, defaults applied (the relay's `onceKey` too: send-awards.ts sends it to a relay only);
 * throws QuestPointsError('invalid') naming the field and rule.
 */
export function parseAward(
  input: AwardInput,
  defaults: { questId?: string; serviceUserId?: string },
): AwardBody & { questId: string; onceKey?: string } {
  const { questId = defaults.questId, serviceUserId = defaults.serviceUserId, ...rest } = (input ?? {}) as AwardInput;
  const body = checkFields(RELAY_AWARD_RULES, { ...rest, serviceUserId }) as AwardBody;
  return { ...body, questId: check(ID_RULE, questId, 'questId') };
}

/** questId / serviceUserId of a read, defaults applied. */
export function parseIds(questId: string | undefined, serviceUserId?: string | undefined | false) {
  return {
    questId: check(ID_RULE, questId, 'questId'),
    serviceUserId: serviceUserId === false ? '' : check(ID_RULE, serviceUserId, 'serviceUserId'),
  };
}
