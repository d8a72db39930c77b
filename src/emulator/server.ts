import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { buildEmulator } from './app.js';
import type { EmulatorState } from './state.js';
import type { EmulatorOptions, RunningServer } from './types.js';

export interface RunningEmulator extends RunningServer {
  /** The state as GET /__emulator/state would export it (works with admin off). */
  exportState(): EmulatorState;
}

/** The emulator on Node (@hono/node-server). Resolves once listening; port 0 picks a free port. */
export function startEmulator(options: EmulatorOptions & { host?: string; port?: number } = {}): Promise<RunningEmulator> {
  const { host = '127.0.0.1', port = 8787, ...emulatorOptions } = options;
  const { app, core } = buildEmulator(emulatorOptions);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      server.off('error', reject);
      const urlHost = info.family === 'IPv6' || host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${urlHost}:${info.port}`,
        port: info.port,
        exportState: core.exportState,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            (server as Server).closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
