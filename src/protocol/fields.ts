import * as v from 'valibot';
import { EMAIL_RULE, WALLET_ADDRESS_RULE, WALLET_CHAIN_RULE, WALLET_MESSAGE, WALLET_RULES } from './identify-rules.js';
import {
  checkRule,
  EVENT_DESCRIPTION_RULE,
  EVENT_NAME_RULE,
  EVENT_POINTS_RULE,
  ID_RULE,
  type FieldRule,
  type NumberRule,
  type RuleTable,
} from './rules.js';

// The servers' field schemas: valibot runs the rules of rules.ts (the type, then each step through checkRule), so a
// server and the browser SDK refuse the same values with the same messages.

/** The valibot schema schemaOf() makes of a rule: a number schema for a NumberRule, a string schema otherwise. */
export type SchemaOf<R extends FieldRule> = v.GenericSchema<R extends NumberRule ? number : string>;

/** The valibot schema of a rule: its type, then its steps. */
export function schemaOf<R extends FieldRule>(rule: R): SchemaOf<R> {
  const base = rule.type === 'number' ? v.number('must be a number') : v.string('must be a string');
  return v.pipe(
    base as v.GenericSchema<string | number>,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const checked = checkRule(rule, dataset.value);
      if (checked.ok) return checked.value;
      addIssue({ message: checked.message });
      return NEVER;
    }),
  ) as unknown as SchemaOf<R>;
}

/** The v.object entries entriesOf() makes of a rule table: each field's schema, wrapped in v.optional when optional. */
export type ObjectEntries<T extends RuleTable> = {
  [K in keyof T]: T[K] extends { optional: true } ? v.OptionalSchema<SchemaOf<T[K]['rule']>, undefined> : SchemaOf<T[K]['rule']>;
};

/** v.object entries from a rule table (an optional field may be absent): the servers' bodies are built from it. */
export function entriesOf<T extends RuleTable>(rules: T): ObjectEntries<T> {
  const entries: Record<string, v.GenericSchema> = {};
  for (const [key, { rule, optional }] of Object.entries(rules)) entries[key] = optional ? v.optional(schemaOf(rule)) : schemaOf(rule);
  return entries as ObjectEntries<T>;
}

/** questId and serviceUserId (rules.ts says why "." and ".." are refused). */
export const IdSchema = schemaOf(ID_RULE);
/** A quest id, in a path or a body: IdSchema under the name the spec gives it. */
export const QuestIdSchema = IdSchema;
/** A player's service user id, in a path or a body: IdSchema under the name the spec gives it. */
export const ServiceUserIdSchema = IdSchema;
/** `eventPoints`: any finite number, negative and fractional included (totals are exact to POINTS_DECIMALS places). */
export const EventPointsSchema = schemaOf(EVENT_POINTS_RULE);
/** `eventName` (EVENT_NAME_RULE); an award without one is recorded under DEFAULT_EVENT_NAME. */
export const EventNameSchema = schemaOf(EVENT_NAME_RULE);
/** `eventDescription` (EVENT_DESCRIPTION_RULE); an award without one is recorded with `""`. */
export const EventDescriptionSchema = schemaOf(EVENT_DESCRIPTION_RULE);
/** An e-mail address (EMAIL_RULE): the output is trimmed, not yet lower-cased (normaliseEmail() does that). */
export const EmailSchema = schemaOf(EMAIL_RULE);
/** `wallet.address` (WALLET_ADDRESS_RULE): the output is trimmed; normaliseAddress() lower-cases EVM addresses. */
export const WalletAddressSchema = schemaOf(WALLET_ADDRESS_RULE);
/** `wallet.chain` (WALLET_CHAIN_RULE): the output is trimmed; normaliseChain() lower-cases it. */
export const WalletChainSchema = schemaOf(WALLET_CHAIN_RULE);
/** `{ address, chain }`, both required; anything else is refused with WALLET_MESSAGE. */
export const WalletSchema = v.object(entriesOf(WALLET_RULES), WALLET_MESSAGE);

/** A wallet as WalletSchema outputs it: trimmed, not yet normalised (see normaliseWallet()). */
export type Wallet = v.InferOutput<typeof WalletSchema>;
