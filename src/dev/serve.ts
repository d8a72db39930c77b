import { ConfigError, startNodeServer, takeLimits, type ServerLimits } from '../kit/index.js';
import { isLoopbackAddress, isLoopbackHost } from '../kit/loopback.js';
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

const refusal = (host: string, resolved?: string) =>
  new ConfigError(
    'host',
    'not_loopback',
    `dev mode refuses to listen on "${host}"${resolved ? ` (it resolves to ${resolved})` : ''}: it mints tokens without a login, so it binds only to a loopback ` +
      'address (127.0.0.1, ::1 or localhost). Run the production relay (quest-points relay) to serve other hosts.',
  );

/** Throws a ConfigError (code `not_loopback`) for a host that is not a loopback address or name. */
export function assertLoopbackHost(host: string): void {
  if (!isLoopbackHost(host)) throw refusal(host);
}

/** Prints as `http://HOST:PORT`, with IPv6 hosts in brackets. */
export function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function devUrls(origin: string) {
  return { relay: `${origin}${DEV_PATHS.relay}`, emulator: `${origin}${DEV_PATHS.emulator}`, token: `${origin}${DEV_PATHS.token}` };
}

/**
 * Serve the dev composition on one loopback port (relay, emulator admin and token minting under their prefixes).
 * A name must resolve, and only to loopback addresses (`*.localhost` that resolves nowhere: ConfigError `host_not_found`).
 */
export async function startDevServer(options: DevServerOptions & ServerLimits & { host?: string; port?: number } = {}): Promise<RunningDevServer> {
  const [limits, { host = '127.0.0.1', port = 8787, ...devOptions }] = takeLimits(options);
  assertLoopbackHost(host);
  const dev = createDevServer(devOptions);
  const running = await startNodeServer({
    fetch: (request, env) => dev.fetch(request, env as DevBindings),
    host,
    port,
    ...limits,
    checkAddress: (address) => {
      if (!isLoopbackAddress(address)) throw refusal(host, address);
    },
  });
  const url = originOf(host, running.port);
  return { url, port: running.port, urls: devUrls(url), dev, close: running.close };
}
