import { EMAIL_REGEX } from 'valibot';
import { CHAIN_MAX_LENGTH, EMAIL_MAX_LENGTH, WALLET_ADDRESS_MAX_LENGTH } from './limits.js';
import { maxChars, noControl, notEmpty, oneCharAtLeast, text, type RuleTable } from './rules.js';

// The rules of POST /users/identify, apart from the award's (rules.ts): the browser SDK loads them with its account
// calls, on first use, so a game that never identifies players does not ship them.

/** valibot's own e-mail pattern, as v.email uses it. */
export const EMAIL_RULE = text('trim', maxChars(EMAIL_MAX_LENGTH), [(s) => EMAIL_REGEX.test(s), 'must be a valid e-mail address']);
/** `wallet.address`: trimmed, then 1 to WALLET_ADDRESS_MAX_LENGTH printable ASCII characters without spaces. */
export const WALLET_ADDRESS_RULE = text('trim', notEmpty, maxChars(WALLET_ADDRESS_MAX_LENGTH), [
  (s) => /^[\x21-\x7e]+$/.test(s),
  'must be printable ASCII without spaces',
]);
/**
 * `wallet.chain`: 1 to CHAIN_MAX_LENGTH characters without control characters, not blank; trimmed. Any chain passes
 * here; the emulator narrows it with its `chains` option.
 */
export const WALLET_CHAIN_RULE = text(oneCharAtLeast, maxChars(CHAIN_MAX_LENGTH), noControl, 'trim', notEmpty);

/** POST /users/identify — the `wallet` object's fields. */
export const WALLET_RULES = { address: { rule: WALLET_ADDRESS_RULE }, chain: { rule: WALLET_CHAIN_RULE } } as const satisfies RuleTable;
/** The rule a `wallet` that is not an object breaks. */
export const WALLET_MESSAGE = 'must be an object with address and chain';
/** POST /users/identify — the rule across its two fields. */
export const IDENTIFY_ONE_OF_MESSAGE = 'exactly one of email or wallet is required (not both, not neither)';
