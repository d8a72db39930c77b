import type { IdentifyBody } from '../protocol/bodies.js';
import { paths } from '../protocol/paths.js';
import type {
  EnrolledUser,
  EnrolledUsersResponse,
  EnrollmentResponse,
  EnrollmentStatus,
  IdentifyResponse,
  PointsResponse,
  PointsSummary,
} from '../protocol/responses.js';
import type { QuestPointsError } from './errors.js';
import { idsOf } from './live.js';
import type { KV } from './store.js';
import { answerError, type Transport } from './transport.js';

/**
 * The calls that are not awards: the pair's summary, identify, enrollment, enrolled users. Each answer tells whether
 * the relay is reachable (`setOnline`); a failure is a QuestPointsError.
 */
export function createRequests(transport: Transport, cache: KV<unknown>, setOnline: (online: boolean) => void) {
  /** The body of a 2xx answer with `success: true`, of the service's response type `T`; else a QuestPointsError. */
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

  return {
    async summary(pair: string): Promise<PointsSummary> {
      const { questId, serviceUserId } = idsOf(pair);
      return (await call<PointsResponse>(paths.pointsOf(questId, serviceUserId))).data;
    },
    /** A serviceUserId never changes: once known it is answered offline, from the cache (IndexedDB, or memory). */
    async identify(body: IdentifyBody): Promise<string> {
      const key = `id:${JSON.stringify(body)}`;
      const known = await cache.get(key).catch(() => undefined);
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

export type Requests = ReturnType<typeof createRequests>;
