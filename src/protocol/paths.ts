// Paths of the service interface. Every segment is percent-encoded, so an id such as
// "../users/identify" or "a/b" stays one segment and never changes the route.

const seg = (value: string) => encodeURIComponent(value);

/** Builders of the request paths (with the query, where there is one) the SDK and the relay send. */
export const paths = {
  /** POST: award points in a quest. */
  points: (questId: string) => `/group-quests/${seg(questId)}/points`,
  /** GET: a user's total and history in a quest. */
  pointsOf: (questId: string, serviceUserId: string) => `/group-quests/${seg(questId)}/points/${seg(serviceUserId)}`,
  /** POST: a user's id from an e-mail or a wallet. */
  identify: () => '/users/identify',
  /** GET: whether a user is enrolled in a quest, and their points there. */
  enrollment: (questId: string, serviceUserId: string) => `/group-quests/${seg(questId)}/enrolled-users/${seg(serviceUserId)}`,
  /** GET: one page of a quest's enrolled users; `limit` and `offset` go in the query only when given. */
  enrolledUsers: (questId: string, page?: { limit?: number; offset?: number }) => {
    const query = new URLSearchParams();
    if (page?.limit !== undefined) query.set('limit', String(page.limit));
    if (page?.offset !== undefined) query.set('offset', String(page.offset));
    const qs = query.toString();
    return `/group-quests/${seg(questId)}/enrolled-users${qs ? `?${qs}` : ''}`;
  },
  /** The relay's batch endpoint (not part of the service interface). */
  batch: () => '/batch/points',
} as const;

/** Route patterns (Hono syntax) for the servers. */
export const routes = {
  points: '/group-quests/:questId/points',
  pointsOf: '/group-quests/:questId/points/:serviceUserId',
  identify: '/users/identify',
  enrollment: '/group-quests/:questId/enrolled-users/:serviceUserId',
  enrolledUsers: '/group-quests/:questId/enrolled-users',
  batch: '/batch/points',
} as const;

/**
 * The first segment of a raw URL path that is not valid percent-encoded UTF-8 (%ZZ, or %ED%A0%80: a lone surrogate),
 * or undefined. Routers keep such a segment as literal text, so without this check "%ED%A0%80" would silently become
 * an id of nine characters; the servers answer 400 instead.
 */
export function malformedPathSegment(pathname: string): string | undefined {
  for (const segment of pathname.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      return segment.length > 64 ? `${segment.slice(0, 64)}...` : segment;
    }
  }
  return undefined;
}

/** The 400 message for a segment malformedPathSegment() found: it quotes the segment (at most 64 characters and "..."). */
export const malformedPathMessage = (segment: string): string => `path segment ${JSON.stringify(segment)} is not valid percent-encoded UTF-8`;
