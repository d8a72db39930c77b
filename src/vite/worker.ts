import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Connect } from 'vite';
import { DEV_PATHS } from '../dev/server.js';
import { ConfigError } from '../kit/errors.js';
import { withConfig } from '../sw/config.js';

/** The Vite plugin's `worker` option: the ready-made worker (quest-points/sw.js), served and emitted configured. */
export interface QuestPointsWorkerOptions {
  /**
   * The token URL the worker fetches (and the pages should read with `tokenFrom`): a path on the game's origin,
   * answering JSON `{ "token": "..." }` for the player of the session cookie, e.g. '/session/qp-token'. Under `vite`
   * and `vite preview` the plugin answers this path itself, as `/__dev/token` (its dev relay takes dev tokens only).
   */
  tokenUrl: string;
  /** The relay as the pages use it. Default '/api' (where the plugin mounts its dev relay). */
  relayUrl?: string;
  /** The worker's file at the root of the site (so its scope covers every page). Default 'quest-points-sw.js'. */
  fileName?: string;
  /** The pages' storageName, when not the default. */
  storageName?: string;
  /** The pages' backgroundSync tag, when not the default. */
  tag?: string;
  /** How long one sync event keeps retrying. Default 60 000 ms. */
  budgetMs?: number;
}

const invalid = (option: string, rule: string) => new ConfigError(`worker.${option}`, 'invalid', `quest-points/vite: worker.${option} ${rule}`);

/** Checked once, when the plugin is made: a bad option fails the config load, naming it. */
export function workerSetup(options: QuestPointsWorkerOptions) {
  const { tokenUrl, relayUrl = DEV_PATHS.relay, fileName = 'quest-points-sw.js', storageName, tag, budgetMs } = options;
  // Same origin: the worker sends the player's cookies there, and refuses another origin anyway.
  if (typeof tokenUrl !== 'string' || !tokenUrl.startsWith('/') || tokenUrl.startsWith('//'))
    throw invalid('tokenUrl', `must be a path on the game's origin ('/session/qp-token'), not ${JSON.stringify(tokenUrl)}`);
  if (typeof relayUrl !== 'string' || !relayUrl) throw invalid('relayUrl', 'must be a non-empty string');
  if (typeof fileName !== 'string' || !/^[\w.-]+\.js$/.test(fileName))
    throw invalid('fileName', `must be a file name ending in .js, not ${JSON.stringify(fileName)}`);
  if (budgetMs !== undefined && !(budgetMs > 0)) throw invalid('budgetMs', 'must be a positive number');
  // The path alone: everything before the first '?'.
  const [tokenPath = tokenUrl] = tokenUrl.split('?');
  // The package's own dist/sw/worker.js (this file is dist/vite/worker.js), read when first asked for.
  const file = fileURLToPath(new URL('../sw/worker.js', import.meta.url));
  let source: Promise<string> | undefined;
  const script = async () => {
    source ??= readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      source = undefined;
      throw new Error(`quest-points/vite: the ready-made worker ${file} cannot be read (${error.code ?? error.message}): is the package built?`);
    });
    return withConfig(await source, { relayUrl, tokenUrl, storageName, tag, budgetMs });
  };
  return {
    fileName,
    script,
    /**
     * For `vite` and `vite preview`: answers `<base><fileName>` with the configured worker, and passes the token URL
     * on to the dev server's token route (query kept). Registered before the dev server's own middleware.
     */
    middleware(base: string): Connect.NextHandleFunction {
      const workerPath = `${base.endsWith('/') ? base : `${base}/`}${fileName}`;
      return (req, res, next) => {
        const [path = '', query] = (req.url ?? '').split('?');
        if (path === tokenPath && path !== DEV_PATHS.token) {
          req.url = query === undefined ? DEV_PATHS.token : `${DEV_PATHS.token}?${query}`;
          return next();
        }
        if (path !== workerPath || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
        script().then((text) => {
          // no-cache: the browser checks for a new worker on every registration, as with any script it may keep.
          res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' });
          res.end(req.method === 'HEAD' ? undefined : text);
        }, next);
      };
    },
  };
}
