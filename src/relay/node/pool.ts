// The relay's upstream transport on Node: undici's Agent, keep-alive connections to the service, a bounded number per
// origin, driven through dispatch() with a handler that collects the body. Not fetch: fetch builds a WHATWG Request,
// Headers and a web stream per call and reads the answer through another. Not request() either: it adds an
// AsyncResource, a parsed header object and a Node stream per call (less work per call; on the loaded bench machine the
// difference stayed within the noise, BENCHMARKS.md). The same per-attempt timeout, deadline and disconnect reach it
// as the signal (upstream.ts), which also frees the socket of an abandoned exchange.
import { Agent } from 'undici';
import { ConfigError, parsePositiveInteger } from '../../kit/index.js';
import { onAbort } from '../../kit/signal.js';
import { cancelOf, honoursSignal, type UpstreamAnswer, type UpstreamExchange, type UpstreamTransport } from '../upstream.js';
import { DEFAULT_UPSTREAM_CONNECTIONS } from './settings.js';

/**
 * Bun answers `import 'undici'` with a stub of its own that has no Agent.request: there startRelay keeps the relay's
 * default transport (the runtime's fetch, Bun's own).
 */
export const poolAvailable = typeof (Agent.prototype as { request?: unknown }).request === 'function';

export interface PoolTransportOptions {
  /** Connections to the service at once; more exchanges wait in the pool's queue. Default QP_UPSTREAM_CONNECTIONS or 128. */
  connections?: number | undefined;
  /** An idle connection is closed after this long; below the service's own keep-alive timeout (Node's is 5 s). Default 4000. */
  keepAliveTimeoutMs?: number;
}

export interface PoolTransport {
  transport: UpstreamTransport;
  /** Closes the connections (after in-flight exchanges end). */
  close(): Promise<void>;
}

export function createPoolTransport(options: PoolTransportOptions = {}): PoolTransport {
  const connections =
    options.connections ?? parsePositiveInteger(process.env.QP_UPSTREAM_CONNECTIONS, 'QP_UPSTREAM_CONNECTIONS') ?? DEFAULT_UPSTREAM_CONNECTIONS;
  if (!Number.isInteger(connections) || connections < 1) {
    throw new ConfigError('upstreamConnections', 'invalid', `upstreamConnections must be a positive integer, got ${connections}`);
  }
  // undici's own headers/body timeouts are off: the attempt's signal already bounds the whole exchange (upstream.ts),
  // and each of them is one more timer to refresh per call.
  const agent = new Agent({ connections, keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  // The relay has one base URL: its origin is parsed once; each call only splits off the path.
  const origins = new Set<string>();
  const transport = honoursSignal((exchange) => send(agent, originOf(exchange.url), exchange));
  function originOf(url: string): string {
    for (const origin of origins) if (url.startsWith(`${origin}/`)) return origin;
    const parsed = new URL(url);
    if (origins.size < 8) origins.add(parsed.origin);
    return parsed.origin;
  }
  return { transport, close: () => agent.close() };
}

/** One exchange through the agent: the status, the first Retry-After and the body as text, or the error. */
function send(agent: Agent, origin: string, exchange: UpstreamExchange): Promise<UpstreamAnswer> {
  const { method, url, headers, body } = exchange;
  // The relay's own Cancel when it has one (no AbortSignal made for it).
  const signal = cancelOf(exchange);
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let abort: ((reason?: Error) => void) | undefined;
    let status = 0;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    // Connected: undici's abort frees the socket (and calls onError). Still queued for a connection: rejected now
    // (the caller stops waiting at once), and onConnect cancels it when its turn comes.
    const settle = onAbort(signal, () => (abort ? abort(signal.reason as Error) : reject(signal.reason)));
    agent.dispatch(
      { origin, path: url.slice(origin.length) || '/', method, headers, body: body ?? null },
      {
        onConnect(cancel) {
          if (signal.aborted) cancel(signal.reason as Error);
          else abort = cancel;
        },
        onHeaders(statusCode, rawHeaders) {
          // 1xx (100 Continue, 103 Early Hints) comes before the answer's own head.
          if (statusCode < 200) return true;
          status = statusCode;
          for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
            const name = rawHeaders[i] as Buffer;
            if (name.length === 11 && name.toString('latin1').toLowerCase() === 'retry-after') {
              retryAfter = (rawHeaders[i + 1] as Buffer).toString('latin1');
              break;
            }
          }
          return true;
        },
        onData(chunk) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          settle();
          resolve({ status, retryAfter, text: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8') });
        },
        onError(error) {
          settle();
          reject(error);
        },
      },
    );
  });
}
