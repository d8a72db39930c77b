import type { IncomingMessage } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Connect, Logger, Plugin, PreviewServer, ViteDevServer } from 'vite';
import { createDevServer, DEV_PREFIXES, type DevServer, type DevServerOptions } from '../dev/server.js';
import { assertLoopbackHost, devUrls } from '../dev/serve.js';
import { workerSetup, type QuestPointsWorkerOptions } from './worker.js';

export type { QuestPointsWorkerOptions };

/**
 * questPoints()'s options: the dev composition's (DevServerOptions: the emulator and relay it serves under /api in
 * `vite` and `vite preview`), and the service worker's.
 */
export interface QuestPointsViteOptions extends DevServerOptions {
  /**
   * Sets up delivery with the tab closed: serves the ready-made service worker (quest-points/sw.js) at
   * `/<fileName>` under `vite` and `vite preview` and emits it there in `vite build`, configured with `relayUrl` and
   * `tokenUrl` (the page only registers it). Under `vite` and `vite preview` the plugin answers `tokenUrl` with dev
   * tokens. Off by default.
   */
  worker?: QuestPointsWorkerOptions;
}

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

function mount(server: ViteHost, getDev: () => DevServer, label: string, worker: Worker | undefined, base: string): void {
  // First: it hands the token URL on to the dev token route below.
  if (worker) server.middlewares.use(worker.middleware(base));
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
    if (worker) info(`  worker    served at ${new URL(worker.fileName, local).href}`);
  };
}

type Worker = ReturnType<typeof workerSetup>;

/**
 * `quest-points/vite`: mounts the emulator and a dev relay in Vite's dev server and in `vite preview`
 * (`/api` -> relay, `/__emulator` -> emulator admin, `/__dev/token` -> dev tokens for loopback clients), so a
 * production build can be tried locally against the same faces. `vite build` only emits the worker (option
 * `worker`): a deployed game talks to your own relay and gets its tokens from your own login route. Nothing is
 * created until the first request reaches one of those paths, so loading the config (vitest does) costs nothing.
 */
export function questPoints(options: QuestPointsViteOptions = {}): Plugin {
  const { worker: workerOptions, ...devOptions } = options;
  const worker = workerOptions === undefined ? undefined : workerSetup(workerOptions);
  let dev: DevServer | undefined;
  const getDev = () => (dev ??= createDevServer(devOptions));
  return {
    name: 'quest-points',
    // 'serve' covers `vite` and `vite preview` (both resolve the config with command 'serve'); `vite build` only
    // when there is a worker to emit.
    apply: (_config, { command }) => command === 'serve' || worker !== undefined,
    configureServer(server: ViteDevServer) {
      assertLoopbackVite(server.config.server.host);
      mount(server, getDev, 'dev mode', worker, server.config.base);
    },
    configurePreviewServer(server: PreviewServer) {
      assertLoopbackVite(server.config.preview.host);
      mount(server, getDev, 'dev mode under vite preview', worker, server.config.base);
    },
    async generateBundle() {
      if (worker) this.emitFile({ type: 'asset', fileName: worker.fileName, source: await worker.script() });
    },
  };
}

export default questPoints;
