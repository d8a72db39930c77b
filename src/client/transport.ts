import { DEFAULTS } from './defaults.js';
import { QuestPointsError } from './errors.js';
import type { Answer, createHttp, Http } from './http.js';
import type { QuestPointsOptions } from './options.js';

export type { Answer } from './http.js';

export type Transport = ReturnType<typeof createTransport>;

/**
 * Where the HTTP layer (http.ts, with ofetch, ufo and destr: 3.6 KB gzipped) comes from. A page:
 * `() => import('./http.js')` (client.ts), so it is not in the script a game waits for and a bundler puts it in a
 * chunk of its own, as account.ts and probes.ts; it loads on the first request (the start-up read of the own pair, or
 * the first award's flush). The service worker passes it: its one file has it already (a worker cannot import()).
 */
export type LoadHttp = () => Promise<{ createHttp: typeof createHttp }>;

/** A call that is not an award: the body of a 2xx answer with `success: true`, of the service's response type `T`. */
export type Call = <T>(path: string, body?: unknown) => Promise<T>;

/** The error an answer that is not a success stands for: the relay's message when it sent one. */
export function answerError({ status, body }: Answer): QuestPointsError {
  const message = typeof body?.message === 'string' ? body.message : `HTTP ${status}`;
  return new QuestPointsError(message, status === 401 ? 'auth' : 'http', status);
}

/**
 * The SDK's requests: the options checked at once (a mistake throws from createQuestPoints), the HTTP layer
 * (http.ts: ofetch, the token, the headers) loaded on the first request. Relay mode: a 401 is answered by one retry
 * with a fresh token. Direct mode: the service's API key, no batch endpoint; refused in browsers unless explicitly
 * allowed.
 */
export function createTransport(options: QuestPointsOptions, load: LoadHttp) {
  const { direct, timeoutMs = DEFAULTS.timeoutMs, getToken } = options;
  const config = (message: string) => new QuestPointsError(message, 'config');
  if (direct && typeof window !== 'undefined' && typeof document !== 'undefined' && !options.dangerouslyAllowBrowser)
    throw config('direct (API key) is refused in a browser');
  // Joined by hand, not ofetch's baseURL: ufo's withBase leaves a path alone when it starts with the base, so a
  // relayUrl of '/u' would never be prefixed to '/users/identify'.
  const base = (direct ? direct.url : options.relayUrl)?.replace(/\/+$/, '');
  if (base === undefined) throw config('relayUrl is required');
  // Relay mode needs getToken; direct mode sends the API key instead and has no tokens.
  if (!direct && typeof getToken !== 'function') throw config('getToken is required');
  // A layer that could not be fetched (offline before it was cached) is fetched again by the next request.
  let loading: Promise<Http> | undefined;
  const http = () => {
    loading ??= load().then(({ createHttp }) => createHttp(options, base, timeoutMs));
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  /** One request through the HTTP layer; one that could not load is a request without an answer. */
  async function once(method: string, path: string, body?: unknown, key?: string, keepalive = false): Promise<Answer> {
    const layer = await http().catch(() => {
      throw new QuestPointsError('network error', 'network');
    });
    return layer.once(method, path, body, key, keepalive);
  }

  return {
    batch: !direct,
    async request(method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
      const answer = await once(method, path, body, key);
      if (answer.status !== 401 || direct) return answer;
      const layer = await http();
      layer.invalidate();
      const again = await once(method, path, body, key);
      // A fresh token refused too: ask getToken again next time rather than reuse it.
      if (again.status === 401) layer.invalidate();
      return again;
    },
    /** The token was refused (as another player's): the next request asks getToken() again (resolves once it will). */
    invalidate: () => loading?.then((layer) => layer.invalidate()),
    /** pagehide: fire and forget; the page may be gone before any answer. */
    beacon: (path: string, body: unknown) => void once('POST', path, body, undefined, true).catch(() => {}),
  };
}
