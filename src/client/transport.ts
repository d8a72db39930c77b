import type { $Fetch, createFetch } from 'ofetch';
import { API_KEY_HEADER, IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER } from '../protocol/headers.js';
import { DEFAULTS } from './defaults.js';
import { QuestPointsError } from './errors.js';
import { classify, retryAfterMs } from './retry.js';
import { createTokenCache } from './token.js';
import type { QuestPointsOptions } from './types.js';

/** An HTTP answer, body parsed as JSON (whatever else it was otherwise). */
export interface Answer {
  status: number;
  /** The JSON body (null when there was none): the relay's, so each field is read as untrusted. */
  body: Record<string, unknown> | null;
  retryAfterMs?: number;
}

export type Transport = ReturnType<typeof createTransport>;

/**
 * Where ofetch comes from. A page: `() => import('ofetch')` (client.ts), so ofetch (with ufo and destr: 10 KB
 * minified, 3.6 KB gzipped) is not in the script a game waits for and a bundler puts it in a chunk of its own, as
 * account.ts and probes.ts. The service worker: its one file has it already (a worker cannot import() a chunk).
 */
export type LoadFetch = () => Promise<{ createFetch: typeof createFetch }>;

/** A call that is not an award: the body of a 2xx answer with `success: true`, of the service's response type `T`. */
export type Call = <T>(path: string, body?: unknown) => Promise<T>;

/** The error an answer that is not a success stands for: the relay's message when it sent one. */
export function answerError({ status, body }: Answer): QuestPointsError {
  const message = typeof body?.message === 'string' ? body.message : `HTTP ${status}`;
  return new QuestPointsError(message, status === 401 ? 'auth' : 'http', status);
}

/**
 * Every HTTP call of the SDK goes through ofetch: base URL, JSON bodies, timeouts. ofetch's own retry is off
 * (`retry: false`) and every status is an answer (`ignoreResponseError`): the outbox owns retries, with the same key.
 * Relay mode: `Authorization: Bearer <token>`, a 401 answered by one retry with a fresh token.
 * Direct mode: the service's API_KEY header, no batch endpoint; refused in browsers unless explicitly allowed.
 */
export function createTransport(options: QuestPointsOptions, loadFetch: LoadFetch) {
  const { direct, timeoutMs = DEFAULTS.timeoutMs, getToken } = options;
  const config = (message: string) => new QuestPointsError(message, 'config');
  if (direct && typeof window !== 'undefined' && typeof document !== 'undefined' && !options.dangerouslyAllowBrowser)
    throw config('direct (API key) is refused in a browser');
  // Joined by hand, not ofetch's baseURL: ufo's withBase leaves a path alone when it starts with the base, so a
  // relayUrl of '/u' would never be prefixed to '/users/identify'.
  const base = (direct ? direct.url : options.relayUrl)?.replace(/\/+$/, '');
  if (base === undefined) throw config('relayUrl is required');
  // Relay mode needs getToken; direct mode sends the API key instead and has no tokens.
  const tokens = !direct && typeof getToken === 'function' ? createTokenCache(getToken) : undefined;
  if (!direct && !tokens) throw config('getToken is required');
  // Loaded right after start, so a pagehide's beacon finds it; a chunk that could not be fetched (offline before it
  // was cached) is a request without an answer (offline), and is fetched again by the next one.
  let loading: Promise<$Fetch> | undefined;
  const http = () => {
    loading ??= loadFetch().then(({ createFetch }) => createFetch({ fetch: options.fetch ?? ((input, init) => fetch(input, init)) }));
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  /** One request. `key`: the award's IDEMPOTENCY_KEY. */
  async function once(method: string, path: string, body?: unknown, key?: string, keepalive = false): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (direct) headers[API_KEY_HEADER] = direct.apiKey;
    else if (tokens !== undefined) {
      try {
        headers.authorization = `Bearer ${await tokens.get()}`;
      } catch (error) {
        // A mistake or no session: auth:required. No network: offline, like any request without an answer. The rule
        // (token-check.ts) loads now; where even that fails, there is no network.
        throw await import('./token-check.js').then(
          (rule) => rule.tokenFailure(error, classify),
          () => new QuestPointsError(`getToken() failed, no network: ${(error as Error)?.message ?? error}`, 'network'),
        );
      }
    }
    // The service's own header in direct mode; to the relay the IETF spelling, which proxies such as nginx keep
    // (they drop header names with underscores by default).
    if (key) headers[direct ? IDEMPOTENCY_KEY_HEADER : IDEMPOTENCY_KEY_IETF_HEADER] = key;
    try {
      const res = await (await http()).raw(base + path, {
        method,
        headers,
        body: body as Record<string, unknown> | undefined,
        keepalive,
        timeout: timeoutMs,
        retry: false,
        ignoreResponseError: true,
        responseType: 'json',
      });
      return { status: res.status, body: res._data ?? null, retryAfterMs: retryAfterMs(res.headers.get('retry-after')) };
    } catch (error) {
      const timeout = (error as { cause?: Error })?.cause?.name === 'TimeoutError';
      throw new QuestPointsError(timeout ? `no answer within ${timeoutMs} ms` : 'network error', timeout ? 'timeout' : 'network');
    }
  }

  return {
    batch: !direct,
    async request(method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
      const answer = await once(method, path, body, key);
      if (answer.status !== 401 || !tokens) return answer;
      tokens.invalidate();
      const again = await once(method, path, body, key);
      // A fresh token refused too: ask getToken again next time rather than reuse it.
      if (again.status === 401) tokens.invalidate();
      return again;
    },
    /** pagehide: fire and forget; the page may be gone before any answer. */
    beacon: (path: string, body: unknown) => void once('POST', path, body, undefined, true).catch(() => {}),
  };
}
