export type QuestPointsErrorCode = 'invalid' | 'queue-full' | 'http' | 'auth' | 'network' | 'timeout' | 'config' | 'closed';

/** Every error the SDK throws. `field` names the input field for 'invalid'; `status` is the HTTP status for 'http'. */
export class QuestPointsError extends Error {
  override name = 'QuestPointsError';
  constructor(
    message: string,
    readonly code: QuestPointsErrorCode,
    readonly status?: number,
    readonly field?: string,
  ) {
    super(message);
  }
}
