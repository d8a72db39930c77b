import * as v from 'valibot';
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

const boundedText = (min: number, max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.minLength(min, `must be at least ${min} character${min === 1 ? '' : 's'}`),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(NO_CONTROL_CHARS, 'must not contain control characters'),
  );

/**
 * questId and serviceUserId: 1-128 characters, no control characters, and not "." or "..":
 * URL parsers resolve those as dot-segments even when percent-encoded (%2E%2E), so they cannot be a path segment.
 */
export const IdSchema = v.pipe(
  boundedText(1, ID_MAX_LENGTH),
  v.check((id) => id !== '.' && id !== '..', 'must not be "." or ".." (they cannot be a URL path segment)'),
);
export const QuestIdSchema = IdSchema;
export const ServiceUserIdSchema = IdSchema;

/** Any finite number, integer or float. JSON has no NaN or Infinity; strings are refused. */
export const EventPointsSchema = v.pipe(v.number('must be a number'), v.finite('must be a finite number'));

export const EventNameSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(EVENT_NAME_MAX_LENGTH, `must be at most ${EVENT_NAME_MAX_LENGTH} characters`),
  v.regex(NO_CONTROL_CHARS, 'must not contain control characters'),
);

/** Free text: newlines and tabs are allowed, other control characters are not. */
export const EventDescriptionSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(EVENT_DESCRIPTION_MAX_LENGTH, `must be at most ${EVENT_DESCRIPTION_MAX_LENGTH} characters`),
  // eslint-disable-next-line no-control-regex
  v.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/u, 'must not contain control characters'),
);

export const EmailSchema = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.maxLength(EMAIL_MAX_LENGTH, `must be at most ${EMAIL_MAX_LENGTH} characters`),
  v.email('must be a valid e-mail address'),
);

export const WalletSchema = v.object(
  {
    address: v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.minLength(1, 'must not be empty'),
      v.maxLength(WALLET_ADDRESS_MAX_LENGTH, `must be at most ${WALLET_ADDRESS_MAX_LENGTH} characters`),
      v.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    ),
    chain: v.pipe(boundedText(1, CHAIN_MAX_LENGTH), v.trim(), v.minLength(1, 'must not be empty')),
  },
  'must be an object with address and chain',
);

export type Wallet = v.InferOutput<typeof WalletSchema>;
