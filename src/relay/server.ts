import { startNodeServer, takeLimits, type RunningServer, type ServerLimits } from '../kit/index.js';
import { buildRelay, type RelayOptions } from './app.js';
import { createPinoSink, type LogLevel } from './node/log.js';
import { createPoolTransport } from './node/pool.js';

export type { RunningServer };

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8788;

export type StartRelayOptions = RelayOptions &
  ServerLimits & {
    host?: string;
    port?: number;
    /** Keep-alive connections to the service at once (undici pool); default QP_UPSTREAM_CONNECTIONS or 128. */
    upstreamConnections?: number;
    /** Lowest level of the JSON log written to stderr when no `logger` is given; default QP_LOG_LEVEL or 'info'. */
    logLevel?: LogLevel;
  };

/**
 * Serve the relay on Node; port 0 picks a free port. Resolves once listening. close() is graceful: /readyz turns
 * 503, no new connections are accepted, in-flight requests finish (up to shutdownGraceMs), keep-alive connections
 * are closed, then the Redis connection the relay opened is released.
 */
export async function startRelay(options: StartRelayOptions = {}): Promise<RunningServer> {
  const [limits, { host = DEFAULT_HOST, port = DEFAULT_PORT, upstreamConnections, logLevel, ...relayOptions }] = takeLimits(options);
  // Node's adapters, unless the caller brought its own: an undici pool to the service, pino for the log.
  const pool = relayOptions.upstream?.fetch || relayOptions.upstream?.transport ? undefined : createPoolTransport({ connections: upstreamConnections });
  const log = relayOptions.logger ? undefined : createPinoSink({ level: logLevel });
  const relay = buildRelay({
    ...relayOptions,
    ...(pool ? { upstream: { ...relayOptions.upstream, transport: pool.transport } } : {}),
    ...(log ? { logger: log.sink } : {}),
  });
  const release = async () => {
    await relay.dispose();
    await Promise.all([pool?.close(), log?.flush()]);
  };
  let running: RunningServer;
  try {
    running = await startNodeServer({ fetch: relay.app.fetch, host, port, ...limits });
  } catch (error) {
    await release();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    ...running,
    close: () =>
      (closing ??= (async () => {
        relay.drain();
        try {
          await running.close();
        } finally {
          await release();
        }
      })()),
  };
}
