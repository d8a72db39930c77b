import { API_KEY_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../protocol/index.js';
import { redactSecrets } from './redact.js';
import { ConfigError } from '../kit/index.js';

export interface UpstreamOptions {
  /** Base URL of the Quest Points Service; default process.env.QP_UPSTREAM_URL. */
  url?: string;
  /** The service's API key; default process.env.QP_API_KEY. Never sent anywhere but the service. */
  apiKey?: string;
  /** Per attempt, headers and body included; default 10 000. */
  timeoutMs?: number;
  /** Extra attempts for an award that carries an idempotency key, on a network error or 5xx; default 2. */
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
}

export type UpstreamResult =
  | { kind: 'response'; status: number; body: unknown; retryAfter?: string; attempts: number }
  | { kind: 'failure'; reason: 'timeout' | 'network' | 'invalid_response'; message: string; status?: number; attempts: number };

export interface Upstream {
  /** `retry`: resend on a network error or 5xx, same request and key, a bounded number of times. */
  send(request: UpstreamRequest, options?: { retry?: boolean }): Promise<UpstreamResult>;
  readonly timeoutMs: number;
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

  function target(path: string): string {
    const url = new URL(config.base + path);
    // URL parsing resolves "." and ".." segments (also as %2e): if it did, an id tried to move the request.
    if (url.pathname !== basePath + path.split('?')[0]) throw new Error('path segment would change the upstream path');
    return url.href;
  }

  async function attempt(request: UpstreamRequest, attempts: number): Promise<UpstreamResult> {
    const headers = new Headers({ [API_KEY_HEADER]: config.apiKey, accept: 'application/json' });
    headers.set(REQUEST_ID_HEADER, request.requestId);
    if (request.idempotencyKey !== undefined) headers.set(IDEMPOTENCY_KEY_HEADER, request.idempotencyKey);
    if (request.body !== undefined) headers.set('content-type', 'application/json');
    const url = target(request.path);
    const signal = AbortSignal.timeout(config.timeoutMs);
    let response: Response;
    let text: string;
    try {
      // Raced against the signal too: an in-process fetch (emulator.fetch) may not honour it.
      response = await abortable(
        config.fetch(
          new Request(url, {
            method: request.method,
            headers,
            body: request.body === undefined ? null : JSON.stringify(request.body),
            signal,
          }),
        ),
        signal,
      );
      text = await abortable(response.text(), signal);
    } catch (error) {
      if (signal.aborted) {
        return { kind: 'failure', reason: 'timeout', message: `did not answer within ${config.timeoutMs} ms`, attempts };
      }
      return { kind: 'failure', reason: 'network', message: `unreachable (${networkCode(error)})`, attempts };
    }
    let body: unknown;
    try {
      body = JSON.parse(redact(text));
    } catch {
      return {
        kind: 'failure',
        reason: 'invalid_response',
        message: `answered ${response.status} with a body that is not JSON`,
        status: response.status,
        attempts,
      };
    }
    const retryAfter = response.headers.get('retry-after') ?? undefined;
    return { kind: 'response', status: response.status, body, ...(retryAfter ? { retryAfter } : {}), attempts };
  }

  return {
    timeoutMs: config.timeoutMs,
    async send(request, { retry = false } = {}) {
      const canRetry = retry && request.idempotencyKey !== undefined;
      for (let n = 1; ; n++) {
        const result = await attempt(request, n);
        const transient =
          (result.kind === 'failure' && result.reason === 'network') ||
          (result.kind === 'response' && result.status >= 500) ||
          (result.kind === 'failure' && result.reason === 'invalid_response' && (result.status ?? 0) >= 500);
        if (!canRetry || !transient || n > config.retries) return result;
        await sleep(config.retryDelayMs * 2 ** (n - 1) * (0.5 + Math.random() / 2));
      }
    },
  };
}

/** e.g. ECONNREFUSED; never the error's own text, which may quote a URL or header. */
function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? code : 'network error';
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
