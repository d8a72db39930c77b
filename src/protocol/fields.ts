import * as v from 'valibot';
import {
  checkRule,
  EMAIL_RULE,
  EVENT_DESCRIPTION_RULE,
  EVENT_NAME_RULE,
  EVENT_POINTS_RULE,
  ID_RULE,
  WALLET_ADDRESS_RULE,
  WALLET_CHAIN_RULE,
  WALLET_MESSAGE,
  WALLET_RULES,
  type FieldRule,
  type NumberRule,
  type RuleTable,
} from './rules.js';

// The servers' field schemas: valibot runs the rules of rules.ts (the type, then each step through checkRule), so a
// server and the browser SDK refuse the same values with the same messages.

type SchemaOf<R extends FieldRule> = v.GenericSchema<R extends NumberRule ? number : string>;

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

type ObjectEntries<T extends RuleTable> = {
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
export const QuestIdSchema = IdSchema;
export const ServiceUserIdSchema = IdSchema;
export const EventPointsSchema = schemaOf(EVENT_POINTS_RULE);
export const EventNameSchema = schemaOf(EVENT_NAME_RULE);
export const EventDescriptionSchema = schemaOf(EVENT_DESCRIPTION_RULE);
export const EmailSchema = schemaOf(EMAIL_RULE);
export const WalletAddressSchema = schemaOf(WALLET_ADDRESS_RULE);
export const WalletChainSchema = schemaOf(WALLET_CHAIN_RULE);
export const WalletSchema = v.object(entriesOf(WALLET_RULES), WALLET_MESSAGE);

export type Wallet = v.InferOutput<typeof WalletSchema>;
