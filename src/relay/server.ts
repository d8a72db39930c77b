import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createRelay, type RelayOptions } from './app.js';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8788;

/** Serve the relay on Node; port 0 picks a free port. Resolves once it is listening. */
export async function startRelay(options: RelayOptions & { host?: string; port?: number } = {}): Promise<RunningServer> {
  const { host = DEFAULT_HOST, port = DEFAULT_PORT, ...relayOptions } = options;
  const app = createRelay(relayOptions);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      server.off('error', reject);
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            // Keep-alive sockets would hold close() open until they time out.
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
