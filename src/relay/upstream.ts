import { ABORTED, Cancel, orAbort, sleepUnlessAborted, type AnySignal } from '../kit/signal.js';
import { API_KEY_HEADER, backoffDelay, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, resendNowStatuses } from '../protocol/index.js';
import { createDeadline } from './deadline.js';
import { redactSecrets } from './redact.js';
import { ConfigError } from '../kit/errors.js';

/** One HTTP exchange with the service, as the relay's retry loop hands it to a transport. */
export interface UpstreamExchange {
  method: 'GET' | 'POST';
  /** Absolute URL, already checked against the base. */
  url: string;
  headers: Record<string, string>;
  /** JSON text. */
  body?: string | undefined;
  /** Fires at the attempt's timeout, the caller's deadline or the client's disconnect: stop, and free the socket. */
  signal: AbortSignal;
}

/** The service's answer, body read whole. */
export interface UpstreamAnswer {
  status: number;
  retryAfter?: string | undefined;
  text: string;
}

/**
 * How the relay reaches the service. The default is `fetch` (every runtime); on Node, startRelay passes an undici
 * connection pool (node/pool.ts). A transport rejects on no answer; the error's `code` (e.g. ECONNREFUSED) is the
 * only part of it that reaches a log or a caller.
 */
export type UpstreamTransport = (exchange: UpstreamExchange) => Promise<UpstreamAnswer>;

/** Transports that stop (reject) as soon as the exchange's signal fires: the retry loop then races nothing. */
const honouring = new WeakSet<UpstreamTransport>();

/** Marks a transport that rejects at once when its exchange's signal fires, even while queued (node/pool.ts). */
export function honoursSignal(transport: UpstreamTransport): UpstreamTransport {
  honouring.add(transport);
  return transport;
}

/** The relay's own Cancel behind an exchange: a transport of ours listens to it without making an AbortSignal. */
export const cancelOf = (exchange: UpstreamExchange): AnySignal => (exchange as { cancel?: Cancel }).cancel ?? exchange.signal;

/** An exchange whose `signal` (an AbortSignal) is made only if a transport reads it (fetch does, the pool does not). */
function withSignal(exchange: Omit<UpstreamExchange, 'signal'>, cancel: AnySignal): UpstreamExchange {
  if (!(cancel instanceof Cancel)) return { ...exchange, signal: cancel };
  const { method, url, headers, body } = exchange;
  return {
    method,
    url,
    headers,
    body,
    cancel,
    get signal() {
      return cancel.signal;
    },
  } as UpstreamExchange;
}

/** How the relay reaches the Quest Points Service (RelayOptions `upstream`). */
export interface UpstreamOptions {
  /** Base URL of the Quest Points Service; default process.env.QP_UPSTREAM_URL. */
  url?: string;
  /** The service's API key; default process.env.QP_API_KEY. Never sent anywhere but the service. */
  apiKey?: string;
  /** Per attempt, headers and body included; default 10 000. */
  timeoutMs?: number;
  /** Extra attempts for an award that carries an idempotency key, on no answer or a status the protocol resends at once (408, 5xx); default 2. */
  retries?: number;
  /** Pauses between attempts: full jitter (the protocol's backoffDelay) up to this, doubled each attempt; default 200. */
  retryDelayMs?: number;
  /** A fetch to send through (e.g. emulator.fetch in-process); default the global fetch. Ignored when `transport` is set. */
  fetch?: (request: Request) => Promise<Response>;
  /** The transport itself; default `fetch` (see UpstreamTransport). startRelay on Node sets an undici pool here. */
  transport?: UpstreamTransport;
}

/** A transport over a fetch function: a Request per attempt, the body read as text. */
export function fetchTransport(send: (request: Request) => Promise<Response>): UpstreamTransport {
  return async ({ method, url, headers, body, signal }) => {
    const response = await send(new Request(url, { method, headers, signal, ...(body !== undefined ? { body } : {}) }));
    const text = await response.text();
    return { status: response.status, retryAfter: response.headers.get('retry-after') ?? undefined, text };
  };
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** Built with `paths` from the protocol: every segment percent-encoded. */
  path: string;
  body?: unknown;
  idempotencyKey?: string | undefined;
  requestId: string;
  /** The caller's deadline or disconnect: stops waiting, and no further attempt is made. */
  signal?: AnySignal | undefined;
  /** When `signal` fires at the latest (performance.now()): an attempt ending after it needs no timer of its own. */
  signalAt?: number | undefined;
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

/** What encodeURIComponent leaves in a segment, '/' between segments, and a query of such names and values. */
const PLAIN_PATH = /^(?:\/[\w!$'()*,;:@~.%-]+)+\/?(?:\?[\w!$()*,;:@~.%=&-]*)?$/;
/** A "." or ".." segment, also spelled %2e: URL parsing would resolve it. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:[/?]|$)/i;

const DEFAULTS = { timeoutMs: 10_000, retries: 2, retryDelayMs: 200 } as const;
/** The longest pause between two attempts (the deadline bounds the whole exchange anyway). */
const MAX_PAUSE_MS = 5_000;

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
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new ConfigError('upstream.url', 'invalid', 'upstream URL must be http: or https:');
  if (base.search || base.hash || base.username || base.password) {
    throw new ConfigError('upstream.url', 'invalid', 'upstream URL must not carry a query, fragment or credentials');
  }
  return {
    base: base.href.replace(/\/+$/, ''),
    apiKey,
    timeoutMs: options?.timeoutMs ?? DEFAULTS.timeoutMs,
    retries: Math.max(0, Math.floor(options?.retries ?? DEFAULTS.retries)),
    retryDelayMs: options?.retryDelayMs ?? DEFAULTS.retryDelayMs,
    transport: options?.transport ?? fetchTransport(options?.fetch ?? ((request: Request) => fetch(request))),
  };
}

/** `secrets`: more values to mask in whatever the service answers (the API key always is). */
export function createUpstream(options: UpstreamOptions | undefined, secrets: readonly (string | undefined)[] = []): Upstream {
  const config = resolveUpstreamOptions(options);
  const basePath = new URL(config.base).pathname.replace(/\/+$/, '');
  const masked = [config.apiKey, ...secrets];
  const redact = (text: string) => redactSecrets(text, masked);
  const retryStatusCodes = new Set(resendNowStatuses());
  // A transport that stops at the signal itself needs no race beside it (a promise and a listener per attempt).
  const race: <T>(promise: Promise<T>, signal: AnySignal | undefined) => Promise<T | typeof ABORTED> = honouring.has(config.transport)
    ? (promise) => promise
    : orAbort;

  function target(path: string): string {
    // The paths the protocol builds (percent-encoded segments, a plain query) come out of URL parsing unchanged:
    // no URL object per call for them. Anything else is parsed and must come out where it was meant to go.
    if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return config.base + path;
    const url = new URL(config.base + path);
    // URL parsing resolves "." and ".." segments (also as %2e): if it did, an id tried to move the request.
    if (url.pathname !== basePath + path.split('?')[0]) throw new Error('path segment would change the upstream path');
    return url.href;
  }

  /**
   * One attempt, body read included, within timeoutMs. Raced against the signal too: an in-process fetch
   * (emulator.fetch) may not honour it. The caller's abort surfaces as an AbortError, never retried.
   */
  async function attempt(
    exchange: Omit<UpstreamExchange, 'signal'>,
    caller: AnySignal | undefined,
    callerAt: number | undefined,
  ): Promise<UpstreamAnswer> {
    // The caller's own deadline comes first (an award's 8 s against the attempt's 10 s): no second signal and timer.
    if (caller && callerAt !== undefined && callerAt - performance.now() <= config.timeoutMs) {
      try {
        const answer = await race(config.transport(withSignal(exchange, caller)), caller);
        if (answer === ABORTED) throw caller.reason;
        return answer;
      } catch (error) {
        if (caller.aborted) throw new DOMException('cancelled by the caller', 'AbortError');
        throw error;
      }
    }
    const deadline = createDeadline(config.timeoutMs, caller);
    const { signal } = deadline;
    try {
      const answer = await race(config.transport(withSignal(exchange, signal)), signal);
      if (answer === ABORTED) throw signal.reason;
      return answer;
    } catch (error) {
      if (caller?.aborted) throw new DOMException('cancelled by the caller', 'AbortError');
      if (deadline.expired) throw new DOMException(`did not answer within ${config.timeoutMs} ms`, 'TimeoutError');
      throw error;
    } finally {
      deadline.dispose();
    }
  }

  return {
    async send(request, { retry = false } = {}) {
      // Same request, same key: the service applies an award once however often it arrives.
      const retries = retry && request.idempotencyKey !== undefined ? config.retries : 0;
      const headers: Record<string, string> = {
        [API_KEY_HEADER]: config.apiKey,
        accept: 'application/json',
        [REQUEST_ID_HEADER]: request.requestId,
      };
      if (request.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = request.idempotencyKey;
      let body: string | undefined;
      if (request.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(request.body);
      }
      let url: string;
      try {
        url = target(request.path);
      } catch (error) {
        // Never sent: answered as the service being out of reach (502), as before any attempt.
        return failure(error, request.signal, 0);
      }
      const exchange = { method: request.method, url, headers, body };
      let answer: UpstreamAnswer | undefined;
      let attempts = 0;
      for (;;) {
        attempts++;
        let error: unknown;
        try {
          answer = await attempt(exchange, request.signal, request.signalAt);
        } catch (caught) {
          error = caught;
          answer = undefined;
        }
        const again = attempts <= retries && (answer ? retryStatusCodes.has(answer.status) : !request.signal?.aborted);
        if (!again) {
          if (!answer) return failure(error, request.signal, attempts);
          break;
        }
        const pause = backoffDelay(attempts - 1, config.retryDelayMs, MAX_PAUSE_MS);
        if (!(await sleepUnlessAborted(pause, request.signal))) return failure(error, request.signal, attempts);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(redact(answer.text));
      } catch {
        const message = `answered ${answer.status} with a body that is not JSON`;
        return { kind: 'failure', reason: 'invalid_response', message, status: answer.status, attempts };
      }
      const { retryAfter } = answer;
      return { kind: 'response', status: answer.status, body: parsed, ...(retryAfter ? { retryAfter } : {}), attempts };
    },
  };
}

function failure(error: unknown, signal: AnySignal | undefined, attempts: number): UpstreamResult {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
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
