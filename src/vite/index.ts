import type { IncomingMessage } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Connect, Logger, Plugin, PreviewServer, ViteDevServer } from 'vite';
import { createDevServer, DEV_PREFIXES, type DevServer, type DevServerOptions } from '../dev/server.js';
import { assertLoopbackHost, devUrls } from '../dev/serve.js';

export type QuestPointsViteOptions = DevServerOptions;

/** True for the paths the dev composition answers: /api, /__emulator, /__dev and below. */
export function isDevPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return DEV_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Vite's `server.host` / `preview.host`: undefined -> localhost, true -> every interface, else the address or name given. */
function assertLoopbackVite(host: string | boolean | undefined): void {
  if (host === undefined || host === false) return;
  assertLoopbackHost(host === true ? '0.0.0.0' : host);
}

/** The part of Vite's dev and preview servers the plugin needs (both have the same shape here). */
type ViteHost = Pick<ViteDevServer | PreviewServer, 'middlewares' | 'resolvedUrls' | 'printUrls'> & { config: { logger: Logger } };

function mount(server: ViteHost, getDev: () => DevServer, label: string): void {
  // Leave Vite's global Request/Response alone (the adapter would swap in its own by default).
  const listener = getRequestListener((request, env) => getDev().fetch(request, env as { incoming?: IncomingMessage }), {
    overrideGlobalObjects: false,
  });
  // Before Vite's own middlewares (the preview server's SPA fallback would answer index.html for /__dev/token).
  server.middlewares.use((req: Connect.IncomingMessage, res, next) => {
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
    info(`  quest-points (${label}, loopback only):`);
    info(`  relay     listening on ${urls.relay}`);
    info(`  emulator  listening on ${urls.emulator}`);
    info(`  tokens    listening on ${urls.token}`);
  };
}

/**
 * `quest-points/vite`: mounts the emulator and a dev relay in Vite's dev server and in `vite preview`
 * (`/api` -> relay, `/__emulator` -> emulator admin, `/__dev/token` -> dev tokens for loopback clients), so a
 * production build can be tried locally against the same faces. `vite build` is untouched: a deployed game
 * talks to your own relay and gets its tokens from your own login route. Nothing is created until the first
 * request reaches one of those paths, so loading the config (vitest does) costs nothing.
 */
export function questPoints(options: QuestPointsViteOptions = {}): Plugin {
  let dev: DevServer | undefined;
  const getDev = () => (dev ??= createDevServer(options));
  return {
    name: 'quest-points',
    // 'serve' covers `vite` and `vite preview` (both resolve the config with command 'serve'), not `vite build`.
    apply: 'serve',
    configureServer(server: ViteDevServer) {
      assertLoopbackVite(server.config.server.host);
      mount(server, getDev, 'dev mode');
    },
    configurePreviewServer(server: PreviewServer) {
      assertLoopbackVite(server.config.preview.host);
      mount(server, getDev, 'dev mode under vite preview');
    },
  };
}

export default questPoints;
