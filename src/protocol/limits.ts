/** Limits the design guide fixes where the service interface leaves them open. Shared by every face. */
export const ID_MAX_LENGTH = 128;
export const EVENT_NAME_MAX_LENGTH = 128;
export const EVENT_DESCRIPTION_MAX_LENGTH = 2048;
export const EMAIL_MAX_LENGTH = 254;
export const WALLET_ADDRESS_MAX_LENGTH = 128;
export const CHAIN_MAX_LENGTH = 64;
/** Bodies over this size are answered 413 by the service and the relay. */
export const BODY_LIMIT_BYTES = 16 * 1024;
/** The relay's batch endpoint accepts larger bodies. */
export const BATCH_BODY_LIMIT_BYTES = 256 * 1024;
export const BATCH_MAX_AWARDS = 100;
export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 250;
export const DEFAULT_EVENT_NAME = 'DefaultPointsEvent';
/** The id the spec's test environment (sandbox mode) answers for every identify call. */
export const SANDBOX_USER_ID = 'sandbox_mock_user';
/** The one id the spec's test environment reports as not enrolled. */
export const SANDBOX_NOT_ENROLLED_ID = 'user_not_enrolled';
/** Totals are exact to this many decimal places. */
export const POINTS_DECIMALS = 6;
