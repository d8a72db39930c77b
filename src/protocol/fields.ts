import * as v from 'valibot';
import { entriesOf, type FieldTable } from './field-table.js';
import {
  CHAIN_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  EVENT_DESCRIPTION_MAX_LENGTH,
  EVENT_NAME_MAX_LENGTH,
  ID_MAX_LENGTH,
  WALLET_ADDRESS_MAX_LENGTH,
} from './limits.js';

// Messages are written without the field name: formatIssues() prefixes the dotted path,
// so "wallet.chain must be a string" reads right wherever the field is nested.

// eslint-disable-next-line no-control-regex
const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f-\u009f]*$/u;

// Every rule is a v.check: each kind of valibot action adds its own code to the browser bundle, a check does not.
const rule = (ok: (s: string) => boolean, message: string) => v.check(ok, message);
const maxChars = (max: number) => rule((s) => s.length <= max, `must be at most ${max} characters`);
const notEmpty = () => rule((s) => s.length > 0, 'must not be empty');
const matches = (pattern: RegExp, message = 'must not contain control characters') => rule((s) => pattern.test(s), message);

const boundedText = (min: number, max: number) =>
  v.pipe(
    v.string('must be a string'),
    rule((s) => s.length >= min, `must be at least ${min} character${min === 1 ? '' : 's'}`),
    maxChars(max),
    matches(NO_CONTROL_CHARS),
  );

/**
 * questId and serviceUserId: 1-128 characters, no control characters, and not "." or "..":
 * URL parsers resolve those as dot-segments even when percent-encoded (%2E%2E), so they cannot be a path segment.
 */
export const IdSchema = v.pipe(
  boundedText(1, ID_MAX_LENGTH),
  rule((id) => id !== '.' && id !== '..', 'must not be "." or ".." (they cannot be a URL path segment)'),
);
export const QuestIdSchema = IdSchema;
export const ServiceUserIdSchema = IdSchema;

/** Any finite number, integer or float. JSON has no NaN or Infinity; strings are refused. */
export const EventPointsSchema = v.pipe(v.number('must be a number'), v.check((n: number) => Number.isFinite(n), 'must be a finite number'));

export const EventNameSchema = v.pipe(v.string('must be a string'), maxChars(EVENT_NAME_MAX_LENGTH), matches(NO_CONTROL_CHARS));

/** Free text: newlines and tabs are allowed, other control characters are not. */
export const EventDescriptionSchema = v.pipe(
  v.string('must be a string'),
  maxChars(EVENT_DESCRIPTION_MAX_LENGTH),
  // eslint-disable-next-line no-control-regex
  matches(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/u),
);

export const EmailSchema = v.pipe(
  v.string('must be a string'),
  v.trim(),
  maxChars(EMAIL_MAX_LENGTH),
  // valibot's own e-mail pattern, as v.email uses it.
  matches(v.EMAIL_REGEX, 'must be a valid e-mail address'),
);

export const WalletAddressSchema = v.pipe(
  v.string('must be a string'),
  v.trim(),
  notEmpty(),
  maxChars(WALLET_ADDRESS_MAX_LENGTH),
  matches(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
);
export const WalletChainSchema = v.pipe(boundedText(1, CHAIN_MAX_LENGTH), v.trim(), notEmpty());

/** The wallet's fields and rule, once: WalletSchema is built from them, and the SDK checks them one by one. */
export const WALLET_FIELDS = {
  address: { schema: WalletAddressSchema },
  chain: { schema: WalletChainSchema },
} as const satisfies FieldTable;
export const WALLET_MESSAGE = 'must be an object with address and chain';
// Pure: the SDK imports this module but not WalletSchema, and the bundler must be free to drop it (and v.object).
export const WalletSchema = /* @__PURE__ */ v.object(/* @__PURE__ */ entriesOf(WALLET_FIELDS), WALLET_MESSAGE);

export type Wallet = v.InferOutput<typeof WalletSchema>;
