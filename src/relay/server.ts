import { startNodeServer, takeLimits, type RunningServer, type ServerLimits } from '../kit/index.js';
import { buildRelay, type RelayOptions } from './app.js';

export type { RunningServer };

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8788;

export type StartRelayOptions = RelayOptions &
  ServerLimits & {
    host?: string;
    port?: number;
    /**
     * close(): /readyz answers 503 and requests are still served this long before the relay stops accepting
     * connections, so a load balancer's health check takes it out of rotation first; default 0. Closing a listening
     * socket resets the connections still in its accept queue: a balancer that sent a request on one cannot tell
     * whether the relay got it, and does not resend a POST.
     */
    drainDelayMs?: number;
  };

/**
 * Serve the relay on Node; port 0 picks a free port. Resolves once listening. close() is graceful: /readyz turns
 * 503 (for drainDelayMs, requests are still served), no new connections are accepted, in-flight requests finish (up to shutdownGraceMs), keep-alive connections
 * are closed, then the Redis connection the relay opened is released.
 */
export async function startRelay(options: StartRelayOptions = {}): Promise<RunningServer> {
  const [limits, { host = DEFAULT_HOST, port = DEFAULT_PORT, drainDelayMs = 0, ...relayOptions }] = takeLimits(options);
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
        if (drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
        try {
          await running.close();
        } finally {
          await relay.dispose();
        }
      })()),
  };
}
