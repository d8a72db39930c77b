import { QuestPointsError } from '../client/errors.js';

/**
 * The one token-URL answer, read the same way by the worker (its `tokenUrl`), by pages (`tokenFrom`) and answered by
 * the dev server's `/__dev/token`: `200` with JSON `{ "token": "<the player's relay token>" }` (other fields are
 * ignored). Any other status throws a QuestPointsError with that status (code 'auth' for 401/403: no session).
 */
export async function readToken(response: Response, source = 'tokenUrl'): Promise<string> {
  if (!response.ok) {
    const code = response.status === 401 || response.status === 403 ? 'auth' : 'http';
    throw new QuestPointsError(`${source} answered HTTP ${response.status}`, code, response.status);
  }
  const type = response.headers.get('content-type') ?? '';
  // A static host answers index.html (200, text/html) for a route it does not have: say so rather than send HTML.
  if (!type.includes('json'))
    throw new QuestPointsError(
      `${source} answered ${type || 'no content type'}, not JSON { "token": "..." }: does that route exist (a dev server answers index.html for a route it does not have)?`,
      'auth',
    );
  const body = (await response.json().catch(() => undefined)) as { token?: unknown } | undefined;
  const token = body?.token;
  if (typeof token !== 'string' || !token) throw new QuestPointsError(`${source} answered JSON without a string "token"`, 'auth');
  return token;
}

/**
 * A page's `getToken` from a token URL in that format: `getToken: tokenFrom('/__dev/token')` in development (the
 * Vite plugin's and `quest-points dev`'s route), your own login route in production. Same origin, with cookies,
 * never cached.
 */
export function tokenFrom(url: string): () => Promise<string> {
  return async () => {
    let response: Response;
    try {
      response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    } catch (error) {
      // fetch() rejects only when no answer came: the SDK retries this as offline, never as a sign-in problem.
      throw new QuestPointsError(
        `${url}: no answer (${(error as Error)?.message ?? error})`,
        (error as Error)?.name === 'TimeoutError' ? 'timeout' : 'network',
      );
    }
    return readToken(response, url);
  };
}
