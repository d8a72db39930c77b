/**
 * What kind of failure a QuestPointsError is. 'invalid': an input breaks a field rule (`field` names it; the message
 * names the rule). 'queue-full': award() past `maxQueue`. 'http': the relay (or the service) answered a status that
 * is no success (`status`). 'auth': getToken() failed or returned no string, or a 401 (`status` 401). 'network': no
 * answer at all. 'timeout': no answer within `timeoutMs`. 'config': the options cannot work (relayUrl or getToken
 * missing, `direct` in a browser). 'closed': award() after close().
 */
export type QuestPointsErrorCode = 'invalid' | 'queue-full' | 'http' | 'auth' | 'network' | 'timeout' | 'config' | 'closed';

/** Every error the SDK throws. `field` names the input field for 'invalid'; `status` is the HTTP status for 'http'. */
export class QuestPointsError extends Error {
  override name = 'QuestPointsError';
  /** Made by the SDK: `message` for people, `code` for code, `status` when there was an answer, `field` for 'invalid'. */
  constructor(
    message: string,
    readonly code: QuestPointsErrorCode,
    readonly status?: number,
    readonly field?: string,
  ) {
    super(message);
  }
}
