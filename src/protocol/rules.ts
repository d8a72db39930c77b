import { EVENT_DESCRIPTION_MAX_LENGTH, EVENT_NAME_MAX_LENGTH, ID_MAX_LENGTH } from './limits.js';

// The field rules of the service interface, written once as data. The servers' valibot schemas (fields.ts) run them
// through valibot; the browser SDK runs the very same steps with checkRule() and carries no validation library (the
// 8 KB budget). Messages are written without the field name: the caller prefixes the dotted path, so
// "wallet.chain must be a string" reads right wherever the field is nested.

/** One step: a test with the message stating its rule, or 'trim' (the value goes on trimmed). */
export type Step<T> = readonly [test: (value: T) => boolean, message: string] | 'trim';
/** The rule of a string field: a string, then each step in order. */
export type TextRule = { readonly type: 'string'; readonly steps: readonly Step<string>[] };
/** The rule of a number field: a number (not NaN), then each step in order. */
export type NumberRule = { readonly type: 'number'; readonly steps: readonly Step<number>[] };
/** The rule of one field, as data: checkRule() runs it in the SDK, schemaOf() turns it into a valibot schema. */
export type FieldRule = TextRule | NumberRule;
/** The fields of one body, in the order they are checked; an `optional` field may be absent (not null). */
export type RuleTable = Record<string, { readonly rule: FieldRule; readonly optional?: true }>;

/** Unicode's control characters, general category Cc: C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F). */
const CONTROL_CHAR = /\p{Cc}/u;
/** Step: no control character (Cc) at all. */
export const noControl: Step<string> = [(s) => !CONTROL_CHAR.test(s), 'must not contain control characters'];
/** Step: at most `max` UTF-16 code units, as the service counts characters. */
export const maxChars = (max: number): Step<string> => [(s) => s.length <= max, `must be at most ${max} characters`];
/** Step: not empty (after a 'trim' before it: not blank). */
export const notEmpty: Step<string> = [(s) => s.length > 0, 'must not be empty'];
/**
 * No lone UTF-16 surrogates: such a string has no UTF-8 form, so it cannot be put in a URL (encodeURIComponent
 * throws) nor stored faithfully. String.prototype.isWellFormed is Node 20 / 2023 browsers; \p{Cs} under the u flag
 * matches only an unpaired surrogate (a pair is read as one astral code point) and covers older engines.
 */
export function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === 'function' ? native.call(s) : !/\p{Cs}/u.test(s);
}
/** The rule a string with a lone surrogate breaks, as every face states it (after the field's dotted path). */
export const WELL_FORMED_MESSAGE = 'must be well-formed Unicode (no lone surrogates)';
const wellFormed: Step<string> = [isWellFormed, WELL_FORMED_MESSAGE];
/** Every text field is well-formed Unicode first: the other steps then read real characters. */
export const text = (...steps: Step<string>[]): TextRule => ({ type: 'string', steps: [wellFormed, ...steps] });
/** Step: at least one character, with the ids' own message. */
export const oneCharAtLeast: Step<string> = [(s) => s.length >= 1, 'must be at least 1 character'];

/**
 * questId and serviceUserId: 1-128 characters, no control characters, and not "." or "..":
 * URL parsers resolve those as dot-segments even when percent-encoded (%2E%2E), so they cannot be a path segment.
 */
export const ID_RULE = text(oneCharAtLeast, maxChars(ID_MAX_LENGTH), noControl, [
  (id) => id !== '.' && id !== '..',
  'must not be "." or ".." (they cannot be a URL path segment)',
]);

/** Any finite number, integer or float. JSON has no NaN or Infinity; strings are refused. */
export const EVENT_POINTS_RULE: NumberRule = { type: 'number', steps: [[(n) => Number.isFinite(n), 'must be a finite number']] };
/** `eventName`: at most EVENT_NAME_MAX_LENGTH characters, no control characters; empty is allowed. */
export const EVENT_NAME_RULE = text(maxChars(EVENT_NAME_MAX_LENGTH), noControl);
/**
 * `onceKey`: what makes a once-only achievement one (the relay's economy rules: once per player, quest and eventName +
 * onceKey). The relay's, not the service's: the SDK sends it to the relay, which never forwards it. eventName's rules.
 */
export const ONCE_KEY_RULE = EVENT_NAME_RULE;
/**
 * Free text keeps its layout: tab, line feed and carriage return pass; every other C0 control and DEL is refused.
 * C1 controls (U+0080-U+009F), refused in every other text field, pass here.
 */
const isFreeText = (s: string): boolean => !CONTROL_CHAR.test(s.replace(/[\t\n\r\x80-\x9f]/gu, ''));
/** Free text: newlines and tabs are allowed, other control characters are not. */
export const EVENT_DESCRIPTION_RULE = text(maxChars(EVENT_DESCRIPTION_MAX_LENGTH), [isFreeText, 'must not contain control characters']);

/** POST /group-quests/<questId>/points — the body's fields, in the order they are checked. */
export const AWARD_RULES = {
  serviceUserId: { rule: ID_RULE },
  eventPoints: { rule: EVENT_POINTS_RULE },
  eventName: { rule: EVENT_NAME_RULE, optional: true },
  eventDescription: { rule: EVENT_DESCRIPTION_RULE, optional: true },
} as const satisfies RuleTable;

/** An award as the SDK queues it and the relay reads it: the service's body plus the relay's own `onceKey`. */
export const RELAY_AWARD_RULES = { ...AWARD_RULES, onceKey: { rule: ONCE_KEY_RULE, optional: true } } as const satisfies RuleTable;

/** What checkRule() found: the value to use (trimmed where the rule trims), or the rule it broke. */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** The type test, then each step in order: the (trimmed) value, or the first broken rule. */
export function checkRule(rule: FieldRule, value: unknown): Checked<string | number> {
  if (value === undefined) return { ok: false, message: 'is required' };
  // typeof NaN is 'number', but NaN is not a number a body can carry.
  if (typeof value !== rule.type || Number.isNaN(value)) return { ok: false, message: `must be a ${rule.type}` };
  let current = value as never;
  for (const step of rule.steps) {
    if (step === 'trim') current = (current as string).trim() as never;
    else if (!step[0](current)) return { ok: false, message: step[1] };
  }
  return { ok: true, value: current };
}
