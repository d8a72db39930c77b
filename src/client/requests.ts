import { paths } from '../protocol/paths.js';
import type { PointsResponse, PointsSummary } from '../protocol/responses.js';
import type { Account } from './account.js';
import { identifyKey } from './defaults.js';
import type { QuestPointsError } from './errors.js';
import { idsOf } from './pair.js';
import type { KV } from './store.js';
import { answerError, type Transport } from './transport.js';

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
  let loading: Promise<Account> | undefined;
  /** enrollment and enrolled users (and identify past the cache), loaded on first use. */
  function account(): Promise<Account> {
    if (!loading) {
      loading = import('./account.js').then(({ createAccount }) => createAccount(call, cache));
      // A chunk that could not be fetched (offline) is fetched again on the next call, not refused for the page's life.
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  }

  return {
    async summary(pair: string): Promise<PointsSummary> {
      const { questId, serviceUserId } = idsOf(pair);
      return (await call<PointsResponse>(paths.pointsOf(questId, serviceUserId))).data;
    },
    /**
     * A serviceUserId never changes: once known it is answered from the cache, read here before the account module is
     * loaded, so it answers offline even where that chunk cannot be fetched. The input as given is the key: an input
     * written as the checked body is (trimmed, address before chain) finds it; any other goes on to account.ts.
     */
    async identify(input: unknown): Promise<string> {
      let given: string | undefined;
      try {
        given = identifyKey(input);
      } catch {
        // No JSON form (a cycle, a BigInt): nothing was cached under it, and account.ts refuses it.
      }
      const known = given === undefined ? undefined : await cache.get(given).catch(() => undefined);
      if (typeof known === 'string') return known;
      return (await account()).identify(input, given);
    },
    account,
  };
}

export type Requests = ReturnType<typeof createRequests>;
