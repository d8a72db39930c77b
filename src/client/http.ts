import { createFetch } from 'ofetch';
import { API_KEY_HEADER, IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER } from '../protocol/headers.js';
import { QuestPointsError } from './errors.js';
import { answerHandling, type Handling } from '../protocol/status.js';
import { classify, retryAfterMs } from './retry.js';
import { createTokenCache } from './token.js';
import type { QuestPointsOptions } from './options.js';

/** An HTTP answer, body parsed as JSON (whatever else it was otherwise: the text of a proxy's HTML page). */
export interface Answer {
  status: number;
  /** The JSON body (null when there was none): the relay's, so each field is read as untrusted. */
  body: Record<string, unknown> | null;
  retryAfterMs?: number;
  /** What the answer means for an award (protocol/status.ts answerHandling), from its status and body. */
  handling: Handling;
  /**
   * The same rule, for the results inside a batch's answer. The rule (the status policy and whose refusal it is)
   * comes with this layer, loaded on the first request, rather than in the script a game waits for.
   */
  rule: typeof answerHandling;
}

/**
 * The HTTP layer under transport.ts, loaded with ofetch (and ufo and destr) right after start rather than in the
 * script a game waits for (transport.ts, LoadHttp). Every HTTP call of the SDK goes through ofetch: JSON bodies,
 * timeouts. ofetch's own retry is off (`retry: false`) and every status is an answer (`ignoreResponseError`): the
 * outbox owns retries, with the same key. Relay mode: `Authorization: Bearer <token>` from the token cache (token.ts).
 * Direct mode: the service's API_KEY header. `base`: the relay's (or the service's) URL, checked by transport.ts.
 */
export function createHttp(options: QuestPointsOptions, base: string, timeoutMs: number) {
  const { direct, getToken } = options;
  const tokens = !direct && typeof getToken === 'function' ? createTokenCache(getToken) : undefined;
  const $fetch = createFetch({ fetch: options.fetch ?? ((input, init) => fetch(input, init)) });

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
      const res = await $fetch.raw(base + path, {
        method,
        headers,
        body: body as Record<string, unknown> | undefined,
        keepalive,
        timeout: timeoutMs,
        retry: false,
        ignoreResponseError: true,
        responseType: 'json',
      });
      const data = res._data ?? null;
      const { status } = res;
      return {
        status,
        body: data,
        retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
        handling: answerHandling(status, data),
        rule: answerHandling,
      };
    } catch (error) {
      const timeout = (error as { cause?: Error })?.cause?.name === 'TimeoutError';
      throw new QuestPointsError(timeout ? `no answer within ${timeoutMs} ms` : 'network error', timeout ? 'timeout' : 'network');
    }
  }

  return {
    once,
    /** A token was refused: the next request asks getToken() again. */
    invalidate: () => tokens?.invalidate(),
  };
}

export type Http = ReturnType<typeof createHttp>;
