// Header names of the service interface. HTTP header names are case-insensitive; Headers lower-cases them.

/** The service's credential header: the operator's API key. Only the relay sends it; it never reaches a browser. */
export const API_KEY_HEADER = 'API_KEY';
/** The spec's idempotency header: a UUID per award, so a resend of the same award is applied once. */
export const IDEMPOTENCY_KEY_HEADER = 'IDEMPOTENCY_KEY';
/** The IETF draft's spelling; the relay accepts either (proxies such as nginx drop underscore headers by default). */
export const IDEMPOTENCY_KEY_IETF_HEADER = 'Idempotency-Key';
/**
 * The request id the relay answers with (the caller's own when it sent a plain one of at most 64 characters, else a
 * new one), exposed to pages by CORS: quote it to find the request in the relay's log.
 */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The spec's messages, verbatim: clients match on them. */
export const MESSAGES = {
  userNotFound: 'User not found',
  notEnrolled: 'User is not enrolled in the quest',
} as const;

/** 422 when an idempotency key comes back with a different award: the emulator's answer, and the relay's from its record. */
export const KEY_REUSED_MESSAGE = `${IDEMPOTENCY_KEY_HEADER} was already used with a different request; use a new key for a new award`;
