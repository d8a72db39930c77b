import type { IncomingMessage } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Plugin, ViteDevServer } from 'vite';
import { createDevServer, DEV_PREFIXES, type DevServer, type DevServerOptions } from '../dev/server.js';
import { assertLoopbackHost, devUrls } from '../dev/serve.js';

export type QuestPointsViteOptions = DevServerOptions;

/** True for the paths the dev composition answers: /api, /__emulator, /__dev and below. */
export function isDevPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return DEV_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Vite's `server.host`: undefined -> localhost, true -> every interface, else the address or name given. */
function assertLoopbackVite(host: string | boolean | undefined): void {
  if (host === undefined || host === false) return;
  assertLoopbackHost(host === true ? '0.0.0.0' : host);
}

/**
 * `quest-points/vite`: mounts the emulator and a dev relay in Vite's dev server (`/api` -> relay,
 * `/__emulator` -> emulator admin, `/__dev/token` -> dev tokens for loopback clients). Dev server only:
 * no effect on `vite build`. Nothing is created until the first request reaches one of those paths, so
 * loading the config (vitest does) costs nothing.
 */
export function questPoints(options: QuestPointsViteOptions = {}): Plugin {
  let dev: DevServer | undefined;
  const getDev = () => (dev ??= createDevServer(options));
  return {
    name: 'quest-points',
    apply: 'serve',
    configureServer(server: ViteDevServer) {
      assertLoopbackVite(server.config.server.host);
      // Leave Vite's global Request/Response alone (the adapter would swap in its own by default).
      const listener = getRequestListener((request, env) => getDev().fetch(request, env as { incoming?: IncomingMessage }), {
        overrideGlobalObjects: false,
      });
      server.middlewares.use((req, res, next) => {
        if (!isDevPath(req.url ?? '')) return next();
        listener(req, res).catch(next);
      });
      const printUrls = server.printUrls.bind(server);
      server.printUrls = () => {
        printUrls();
        const local = server.resolvedUrls?.local[0];
        if (!local) return;
        const urls = devUrls(new URL(local).origin);
        const info = (line: string) => server.config.logger.info(line);
        info('  quest-points (dev mode, loopback only):');
        info(`  relay     listening on ${urls.relay}`);
        info(`  emulator  listening on ${urls.emulator}`);
        info(`  tokens    listening on ${urls.token}`);
      };
    },
  };
}

export default questPoints;
