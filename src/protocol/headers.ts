/** Header names of the service interface. HTTP header names are case-insensitive; Headers lower-cases them. */
export const API_KEY_HEADER = 'API_KEY';
export const IDEMPOTENCY_KEY_HEADER = 'IDEMPOTENCY_KEY';
/** The IETF draft's spelling; the relay accepts either (proxies such as nginx drop underscore headers by default). */
export const IDEMPOTENCY_KEY_IETF_HEADER = 'Idempotency-Key';
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The spec's messages, verbatim: clients match on them. */
export const MESSAGES = {
  userNotFound: 'User not found',
  notEnrolled: 'User is not enrolled in the quest',
} as const;
