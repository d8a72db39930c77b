import { createFetch, type FetchError, type FetchResponse } from 'ofetch';
import { API_KEY_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, resendNowStatuses } from '../protocol/index.js';
import { createDeadline } from './deadline.js';
import { redactSecrets } from './redact.js';
import { ConfigError } from '../kit/errors.js';

export interface UpstreamOptions {
  /** Base URL of the Quest Points Service; default process.env.QP_UPSTREAM_URL. */
  url?: string;
  /** The service's API key; default process.env.QP_API_KEY. Never sent anywhere but the service. */
  apiKey?: string;
  /** Per attempt, headers and body included; default 10 000. */
  timeoutMs?: number;
  /** Extra attempts for an award that carries an idempotency key, on no answer or a status the protocol resends at once (408, 5xx); default 2. */
  retries?: number;
  /** First pause between attempts, doubled each time (plus jitter); default 200. */
  retryDelayMs?: number;
  /** Defaults to the global fetch (undici: keep-alive connection pool). e.g. emulator.fetch in-process. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** Built with `paths` from the protocol: every segment percent-encoded. */
  path: string;
  body?: unknown;
  idempotencyKey?: string | undefined;
  requestId: string;
  /** The caller's deadline or disconnect: stops waiting, and no further attempt is made. */
  signal?: AbortSignal | undefined;
}

export type UpstreamResult =
  | { kind: 'response'; status: number; body: unknown; retryAfter?: string; attempts: number }
  | {
      kind: 'failure';
      /** cancelled: the caller's signal stopped it (deadline, client gone). */
      reason: 'timeout' | 'network' | 'invalid_response' | 'cancelled';
      message: string;
      status?: number;
      attempts: number;
    };

export interface Upstream {
  /** `retry`: resend on no answer or a status the protocol resends at once, same request and key, a bounded number of times. */
  send(request: UpstreamRequest, options?: { retry?: boolean }): Promise<UpstreamResult>;
}

const DEFAULTS = { timeoutMs: 10_000, retries: 2, retryDelayMs: 200 } as const;

export function resolveUpstreamOptions(options: UpstreamOptions | undefined) {
  const env = globalThis.process?.env ?? {};
  const url = options?.url ?? env.QP_UPSTREAM_URL;
  const apiKey = options?.apiKey ?? env.QP_API_KEY;
  if (!url) throw new ConfigError('upstream.url', 'missing', 'upstream URL is required: pass upstream.url or set QP_UPSTREAM_URL');
  if (!apiKey) throw new ConfigError('upstream.apiKey', 'missing', 'upstream API key is required: pass upstream.apiKey or set QP_API_KEY');
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new ConfigError('upstream.url', 'invalid', 'upstream URL is not a valid URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ConfigError('upstream.url', 'invalid', 'upstream URL must be http: or https:');
  if (base.search || base.hash || base.username || base.password) {
    throw new ConfigError('upstream.url', 'invalid', 'upstream URL must not carry a query, fragment or credentials');
  }
  return {
    base: base.href.replace(/\/+$/, ''),
    apiKey,
    timeoutMs: options?.timeoutMs ?? DEFAULTS.timeoutMs,
    retries: Math.max(0, Math.floor(options?.retries ?? DEFAULTS.retries)),
    retryDelayMs: options?.retryDelayMs ?? DEFAULTS.retryDelayMs,
    fetch: options?.fetch ?? ((request: Request) => fetch(request)),
  };
}

/** `secrets`: more values to mask in whatever the service answers (the API key always is). */
export function createUpstream(options: UpstreamOptions | undefined, secrets: readonly (string | undefined)[] = []): Upstream {
  const config = resolveUpstreamOptions(options);
  const basePath = new URL(config.base).pathname.replace(/\/+$/, '');
  const redact = (text: string) => redactSecrets(text, [config.apiKey, ...secrets]);
  const retryStatusCodes = resendNowStatuses();

  function target(path: string): string {
    const url = new URL(config.base + path);
    // URL parsing resolves "." and ".." segments (also as %2e): if it did, an id tried to move the request.
    if (url.pathname !== basePath + path.split('?')[0]) throw new Error('path segment would change the upstream path');
    return url.href;
  }

  /**
   * One attempt, body read included, within timeoutMs. Here rather than ofetch's `timeout`: ofetch arms that only
   * when no signal is given, and only for the first attempt. Raced against the signal too: an in-process fetch
   * (emulator.fetch) may not honour it. The caller's abort surfaces as an AbortError, which ofetch never retries.
   */
  async function attempt(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
    const deadline = createDeadline(config.timeoutMs, init.signal);
    const { signal } = deadline;
    try {
      const response = await abortable(config.fetch(new Request(input, { ...init, signal })), signal);
      const text = await abortable(response.text(), signal);
      return new Response(NULL_BODY.has(response.status) ? null : text, { status: response.status, headers: response.headers });
    } catch (error) {
      if (init.signal?.aborted) throw new DOMException('cancelled by the caller', 'AbortError');
      if (deadline.expired) throw new DOMException(`did not answer within ${config.timeoutMs} ms`, 'TimeoutError');
      throw error;
    } finally {
      deadline.dispose();
    }
  }
  const $fetch = createFetch({ fetch: attempt });

  return {
    async send(request, { retry = false } = {}) {
      const retries = retry && request.idempotencyKey !== undefined ? config.retries : 0;
      const headers: Record<string, string> = {
        [API_KEY_HEADER]: config.apiKey,
        accept: 'application/json',
        [REQUEST_ID_HEADER]: request.requestId,
      };
      if (request.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = request.idempotencyKey;
      let attempts = 0;
      let response: FetchResponse<string>;
      try {
        response = await $fetch.raw(target(request.path), {
          method: request.method,
          headers,
          ...(request.body !== undefined ? { body: request.body as Record<string, unknown> } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
          responseType: 'text',
          // Same request, same key: the service applies an award once however often it arrives.
          retry: retries,
          retryStatusCodes,
          retryDelay: () => config.retryDelayMs * 2 ** (attempts - 1) * (0.5 + Math.random() / 2),
          onRequest: () => void attempts++,
        });
      } catch (error) {
        const answered = (error as FetchError<string>).response;
        if (!answered) return failure(error, request.signal, attempts);
        response = answered as FetchResponse<string>;
      }
      let body: unknown;
      try {
        body = JSON.parse(redact(response._data ?? ''));
      } catch {
        const message = `answered ${response.status} with a body that is not JSON`;
        return { kind: 'failure', reason: 'invalid_response', message, status: response.status, attempts };
      }
      const retryAfter = response.headers.get('retry-after') ?? undefined;
      return { kind: 'response', status: response.status, body, ...(retryAfter ? { retryAfter } : {}), attempts };
    },
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

function failure(error: unknown, signal: AbortSignal | undefined, attempts: number): UpstreamResult {
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (signal?.aborted) return { kind: 'failure', reason: 'cancelled', message: 'was not waited for (deadline passed or client gone)', attempts };
  if ((cause as { name?: unknown })?.name === 'TimeoutError') {
    return { kind: 'failure', reason: 'timeout', message: (cause as Error).message, attempts };
  }
  return { kind: 'failure', reason: 'network', message: `unreachable (${networkCode(cause)})`, attempts };
}

/** e.g. ECONNREFUSED; never the error's own text, which may quote a URL or header. */
function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? code : 'network error';
}

/** The promise, or the signal's reason as soon as it fires. The promise is always handled (no unhandled rejection). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
