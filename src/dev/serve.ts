import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { isLoopbackHost } from './loopback.js';
import { createDevServer, DEV_PATHS, type DevBindings, type DevServer, type DevServerOptions } from './server.js';

export interface RunningDevServer {
  /** http://HOST:PORT */
  url: string;
  port: number;
  /** One URL per face: relay, emulator admin, token minting. */
  urls: { relay: string; emulator: string; token: string };
  dev: DevServer;
  close(): Promise<void>;
}

export class NotLoopbackError extends Error {
  constructor(host: string) {
    super(
      `dev mode refuses to listen on "${host}": it mints tokens without a login, so it binds only to a loopback ` +
        'address (127.0.0.1, ::1 or localhost). Run the production relay (quest-points relay) to serve other hosts.',
    );
    this.name = 'NotLoopbackError';
  }
}

export function assertLoopbackHost(host: string): void {
  if (!isLoopbackHost(host)) throw new NotLoopbackError(host);
}

/** Prints as `http://HOST:PORT`, with IPv6 hosts in brackets. */
export function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function devUrls(origin: string) {
  return { relay: `${origin}${DEV_PATHS.relay}`, emulator: `${origin}${DEV_PATHS.emulator}`, token: `${origin}${DEV_PATHS.token}` };
}

/** Serve the dev composition on one loopback port (relay, emulator admin and token minting under their prefixes). */
export async function startDevServer(options: DevServerOptions & { host?: string; port?: number } = {}): Promise<RunningDevServer> {
  const host = options.host ?? '127.0.0.1';
  assertLoopbackHost(host);
  const dev = createDevServer(options);
  const server = serve({ fetch: (request, env) => dev.fetch(request, env as DevBindings), hostname: host, port: options.port ?? 8787 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = originOf(host, port);
  return {
    url,
    port,
    urls: devUrls(url),
    dev,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
