import * as v from 'valibot';
import { entriesOf, type FieldTable } from './field-table.js';
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
  type FieldRule,
} from './rules.js';

// The servers' field schemas: valibot runs the rules of rules.ts (the type, then each step through checkRule), so a
// server and the browser SDK refuse the same values with the same messages.

const schemaOf = <T extends string | number>(rule: FieldRule, base: v.GenericSchema<T>) =>
  v.pipe(
    base,
    v.rawTransform<T, T>(({ dataset, addIssue, NEVER }) => {
      const checked = checkRule(rule, dataset.value);
      if (checked.ok) return checked.value as T;
      addIssue({ message: checked.message });
      return NEVER;
    }),
  );
const textSchema = (rule: FieldRule) => schemaOf<string>(rule, v.string('must be a string'));

/** questId and serviceUserId (rules.ts says why "." and ".." are refused). */
export const IdSchema = textSchema(ID_RULE);
export const QuestIdSchema = IdSchema;
export const ServiceUserIdSchema = IdSchema;
export const EventPointsSchema = schemaOf<number>(EVENT_POINTS_RULE, v.number('must be a number'));
export const EventNameSchema = textSchema(EVENT_NAME_RULE);
export const EventDescriptionSchema = textSchema(EVENT_DESCRIPTION_RULE);
export const EmailSchema = textSchema(EMAIL_RULE);
export const WalletAddressSchema = textSchema(WALLET_ADDRESS_RULE);
export const WalletChainSchema = textSchema(WALLET_CHAIN_RULE);

export const WALLET_FIELDS = {
  address: { schema: WalletAddressSchema },
  chain: { schema: WalletChainSchema },
} as const satisfies FieldTable;
export { WALLET_MESSAGE };
export const WalletSchema = v.object(entriesOf(WALLET_FIELDS), WALLET_MESSAGE);

export type Wallet = v.InferOutput<typeof WalletSchema>;
