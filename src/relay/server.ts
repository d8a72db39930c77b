import { startNodeServer, takeLimits, type RunningServer, type ServerLimits } from '../kit/index.js';
import { buildRelay, type RelayOptions } from './app.js';

export type { RunningServer };

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8788;

export type StartRelayOptions = RelayOptions & ServerLimits & { host?: string; port?: number };

/**
 * Serve the relay on Node; port 0 picks a free port. Resolves once listening. close() is graceful: /readyz turns
 * 503, no new connections are accepted, in-flight requests finish (up to shutdownGraceMs), keep-alive connections
 * are closed, then the Redis connection the relay opened is released.
 */
export async function startRelay(options: StartRelayOptions = {}): Promise<RunningServer> {
  const [limits, { host = DEFAULT_HOST, port = DEFAULT_PORT, ...relayOptions }] = takeLimits(options);
  const relay = buildRelay(relayOptions);
  let running: RunningServer;
  try {
    running = await startNodeServer({ fetch: relay.app.fetch, host, port, ...limits });
  } catch (error) {
    await relay.dispose();
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
          await relay.dispose();
        }
      })()),
  };
}
