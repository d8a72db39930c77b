import { paths } from '../protocol/paths.js';
import type { PointsResponse, PointsSummary } from '../protocol/responses.js';
import type { Account } from './account.js';
import type { QuestPointsError } from './errors.js';
import { idsOf } from './live.js';
import type { KV } from './store.js';
import { answerError, type Transport } from './transport.js';

/** A call that is not an award: the body of a 2xx answer with `success: true`, of the service's response type `T`. */
export type Call = <T>(path: string, body?: unknown) => Promise<T>;

/**
 * The calls that are not awards: the pair's summary here, identify and enrollment in account.ts (loaded on first
 * use). Each answer tells whether the relay is reachable (`setOnline`); a failure is a QuestPointsError.
 */
export function createRequests(transport: Transport, cache: KV<unknown>, setOnline: (online: boolean) => void) {
  async function call<T>(path: string, body?: unknown): Promise<T> {
    try {
      const answer = await transport.request(body ? 'POST' : 'GET', path, body);
      setOnline(true);
      if (answer.status < 300 && answer.body?.success === true) return answer.body as T;
      throw answerError(answer);
    } catch (error) {
      const code = (error as QuestPointsError).code;
      if (code === 'network' || code === 'timeout') setOnline(false);
      throw error;
    }
  }
  let account: Promise<Account> | undefined;

  return {
    async summary(pair: string): Promise<PointsSummary> {
      const { questId, serviceUserId } = idsOf(pair);
      return (await call<PointsResponse>(paths.pointsOf(questId, serviceUserId))).data;
    },
    /** identify, enrollment and enrolled users, loaded on first use. */
    account(): Promise<Account> {
      if (!account) account = import('./account.js').then(({ createAccount }) => createAccount(call, cache));
      return account;
    },
  };
}

export type Requests = ReturnType<typeof createRequests>;
