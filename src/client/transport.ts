import { API_KEY_HEADER } from '../protocol/headers.js';
import { QuestPointsError } from './errors.js';
import { retryAfterMs } from './retry.js';
import { createTokenCache } from './token.js';
import type { QuestPointsOptions } from './types.js';

/** An HTTP answer, body parsed as JSON (null when it is not JSON). */
export interface Answer {
  status: number;
  body: any;
  retryAfterMs?: number;
}

export type Transport = ReturnType<typeof createTransport>;

const isBrowser = () => typeof window !== 'undefined' && typeof document !== 'undefined';

/**
 * Relay mode: `Authorization: Bearer <token>`, a 401 answered by one retry with a fresh token.
 * Direct mode: the service's API_KEY header, no batch endpoint; refused in browsers unless explicitly allowed.
 */
export function createTransport(options: QuestPointsOptions) {
  const { direct, timeoutMs = 10_000 } = options;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  if (direct && isBrowser() && !options.dangerouslyAllowBrowser)
    throw new QuestPointsError('direct (API key) is refused in a browser', 'config');
  const base = (direct ? direct.baseUrl : options.relayUrl)?.replace(/\/+$/, '');
  if (base === undefined) throw new QuestPointsError('relayUrl is required', 'config');
  if (!direct && typeof options.getToken !== 'function') throw new QuestPointsError('getToken is required', 'config');
  const tokens = createTokenCache(options.getToken ?? (() => ''));

  async function headers(extra?: Record<string, string>): Promise<Record<string, string>> {
    if (direct) return { ...extra, [API_KEY_HEADER]: direct.apiKey };
    let token: string;
    try {
      token = await tokens.get();
    } catch (error) {
      throw new QuestPointsError(`getToken() failed: ${(error as Error)?.message ?? error}`, 'auth');
    }
    return { ...extra, authorization: `Bearer ${token}` };
  }

  async function once(method: string, path: string, body?: unknown, extra?: Record<string, string>, keepalive = false): Promise<Answer> {
    const init: RequestInit = { method, keepalive, headers: await headers(body === undefined ? extra : { ...extra, 'content-type': 'application/json' }) };
    if (body !== undefined) init.body = JSON.stringify(body);
    init.signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await doFetch(base + path, init);
    } catch (error) {
      const timeout = (error as Error)?.name === 'TimeoutError';
      throw new QuestPointsError(timeout ? `no answer within ${timeoutMs} ms` : 'network error', timeout ? 'timeout' : 'network');
    }
    return { status: res.status, body: await res.json().catch(() => null), retryAfterMs: retryAfterMs(res.headers.get('retry-after')) };
  }

  return {
    batch: !direct,
    async request(method: string, path: string, body?: unknown, extra?: Record<string, string>): Promise<Answer> {
      const answer = await once(method, path, body, extra);
      if (answer.status !== 401 || direct) return answer;
      tokens.invalidate();
      const again = await once(method, path, body, extra);
      // A fresh token refused too: ask getToken again next time rather than reuse it.
      if (again.status === 401) tokens.invalidate();
      return again;
    },
    /** pagehide: fire and forget; the page may be gone before any answer. */
    beacon: (path: string, body: unknown) => void once('POST', path, body, {}, true).catch(() => {}),
  };
}
