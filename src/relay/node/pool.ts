// The relay's upstream transport on Node: undici's Agent with request(), keep-alive connections to the service,
// a bounded number per origin. Not fetch: fetch builds a WHATWG Request, Headers and a web stream per call and
// reads the answer through another; request() writes the headers object and reads the body as a Node stream.
// The same per-attempt timeout, deadline and disconnect reach it as the signal (upstream.ts), which also frees the
// socket of an abandoned exchange.
import { Agent } from 'undici';
import { ConfigError, parsePositiveInteger } from '../../kit/index.js';
import type { UpstreamTransport } from '../upstream.js';
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
  const transport: UpstreamTransport = async ({ method, url, headers, body, signal }) => {
    const origin = originOf(url);
    const answer = await agent.request({ origin, path: url.slice(origin.length) || '/', method, headers, body: body ?? null, signal });
    const text = await answer.body.text();
    const retryAfter = answer.headers['retry-after'];
    return { status: answer.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, text };
  };
  function originOf(url: string): string {
    for (const origin of origins) if (url.startsWith(`${origin}/`)) return origin;
    const parsed = new URL(url);
    if (origins.size < 8) origins.add(parsed.origin);
    return parsed.origin;
  }
  return { transport, close: () => agent.close() };
}
