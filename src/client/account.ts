import { paths } from '../protocol/paths.js';
import type { IdentifyBody } from '../protocol/bodies.js';
import { EMAIL_RULE, IDENTIFY_ONE_OF_MESSAGE, WALLET_MESSAGE, WALLET_RULES } from '../protocol/identify-rules.js';
import type { EnrolledUser, EnrolledUsersResponse, EnrollmentResponse, EnrollmentStatus, IdentifyResponse } from '../protocol/responses.js';
import type { QuestPointsError } from './errors.js';
import { identifyKey } from './defaults.js';
import type { Call } from './transport.js';
import type { KV } from './store.js';
import { check, checkFields, invalid, type Input } from './validate.js';

/**
 * The calls about players rather than a game's own awards and total: identify, enrollment, enrolled users. Most games
 * never make them, so this module is loaded on first use (a chunk of its own in the game's bundle, with the identify
 * rules); a game that never calls them does not ship them up front.
 */
export function createAccount(call: Call, cache: KV<unknown>) {
  return {
    /**
     * Checked, then the cache under the checked body (`tried`: the key requests.ts already read, the input as given),
     * then the relay; the answer is cached under the checked body (IndexedDB, or memory).
     */
    async identify(input: unknown, tried?: string): Promise<string> {
      const body = parseIdentify(input);
      const key = identifyKey(body);
      const known = key === tried ? undefined : await cache.get(key).catch(() => undefined);
      if (typeof known === 'string') return known;
      const id = (await call<IdentifyResponse>(paths.identify(), body)).data.serviceUserId;
      await cache.setMany([[key, id]]).catch(() => {});
      return id;
    },
    async enrollment(questId: string, serviceUserId: string): Promise<EnrollmentStatus | null> {
      try {
        return (await call<EnrollmentResponse>(paths.enrollment(questId, serviceUserId))).data;
      } catch (error) {
        // Not enrolled (or no such quest): no status, not an error.
        if ((error as QuestPointsError).status === 404) return null;
        throw error;
      }
    },
    /** Offset arithmetic, not nextPage: its shape is the service's business. */
    async *enrolledUsers(questId: string, limit: number | undefined, offset: number): AsyncIterableIterator<EnrolledUser[]> {
      for (;;) {
        const body = await call<EnrolledUsersResponse>(paths.enrolledUsers(questId, { limit, offset }));
        const users = body.data;
        if (users.length) yield users;
        if (!users.length || body.pagination?.nextPage == null) return;
        offset += users.length;
      }
    },
  };
}

/** Exactly one of email or wallet, as IdentifyBodySchema says. */
export function parseIdentify(input: unknown): IdentifyBody {
  const { email, wallet } = (input ?? {}) as Input;
  const body: IdentifyBody = {};
  if (email !== undefined) body.email = check(EMAIL_RULE, email, 'email');
  if (wallet !== undefined) {
    if (!wallet || typeof wallet !== 'object') throw invalid(`wallet ${WALLET_MESSAGE}`, 'wallet');
    body.wallet = checkFields(WALLET_RULES, wallet as Input, 'wallet') as IdentifyBody['wallet'];
  }
  if ((email === undefined) === (wallet === undefined)) throw invalid(IDENTIFY_ONE_OF_MESSAGE);
  return body;
}

export type Account = ReturnType<typeof createAccount>;
