// Limits the design guide fixes where the service interface leaves them open. Shared by every face.

/** Longest `questId` and `serviceUserId`, in UTF-16 code units (what `String.length` counts). */
export const ID_MAX_LENGTH = 128;
/** Longest `eventName`, in UTF-16 code units; longer is refused with 400. */
export const EVENT_NAME_MAX_LENGTH = 128;
/** Longest `eventDescription`, in UTF-16 code units; longer is refused with 400. */
export const EVENT_DESCRIPTION_MAX_LENGTH = 2048;
/** Longest e-mail address after trimming, in UTF-16 code units: RFC 5321's 254-character path limit. */
export const EMAIL_MAX_LENGTH = 254;
/** Longest `wallet.address` after trimming, in characters (printable ASCII). */
export const WALLET_ADDRESS_MAX_LENGTH = 128;
/** Longest `wallet.chain`, in UTF-16 code units (CAIP-2 ids such as `eip155:1` fit with room to spare). */
export const CHAIN_MAX_LENGTH = 64;
/** Bodies over this size are answered 413 by the service and the relay. */
export const BODY_LIMIT_BYTES = 16 * 1024;
/** The relay's batch endpoint accepts larger bodies. */
export const BATCH_BODY_LIMIT_BYTES = 256 * 1024;
/** Most awards in one POST /batch/points request (the relay's endpoint); the SDK sends at most this many at once. */
export const BATCH_MAX_AWARDS = 100;
/** The enrolled-users page size when `limit` is absent (the spec leaves it open; its text speaks of 100). */
export const PAGE_LIMIT_DEFAULT = 100;
/** The largest enrolled-users page: a larger `limit` is clamped to this and the applied value reported. */
export const PAGE_LIMIT_MAX = 250;
/** The `eventName` an award without one is recorded under, as the service does. */
export const DEFAULT_EVENT_NAME = 'DefaultPointsEvent';
/** The id the spec's test environment (sandbox mode) answers for every identify call. */
export const SANDBOX_USER_ID = 'sandbox_mock_user';
/** The one id the spec's test environment reports as not enrolled. */
export const SANDBOX_NOT_ENROLLED_ID = 'user_not_enrolled';
/** Totals are exact to this many decimal places. */
export const POINTS_DECIMALS = 6;

/** A points amount rounded to POINTS_DECIMALS places (0.1 + 0.2 reads 0.3), as the service's totals read back. */
export const roundPoints = (points: number): number => Math.round(points * POINTS_SCALE) / POINTS_SCALE;
const POINTS_SCALE = 10 ** POINTS_DECIMALS;
