// The ready-made service worker (quest-points/sw.js, bundled by scripts/build-sw.mjs into one ES module) for games
// that have none: register it with { type: 'module' } as '/quest-points-sw.js?relayUrl=/api&tokenUrl=/qp-token'
// (storageName and tag too, when the pages use others), or let the Vite plugin's `worker` option serve and emit it
// with its configuration written in (config.ts; the URL's query still wins). Games with a worker of their own call
// registerQuestPointsSync() in it instead.
import { QuestPointsError } from '../client/errors.js';
import { writtenConfig } from './config.js';
import { registerQuestPointsSync } from './index.js';

interface InstallScope {
  location: Location;
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install', listener: () => void): void;
}

const scope = globalThis as unknown as InstallScope;
const written = writtenConfig();
const params = new URL(scope.location.href).searchParams;
const param = (name: keyof typeof written) => params.get(name) || (written[name] === undefined ? undefined : String(written[name]));
const required = (name: 'relayUrl' | 'tokenUrl') => {
  const value = param(name);
  if (!value)
    throw new QuestPointsError(
      `the worker's script URL needs ?${name}= (quest-points/sw.js?relayUrl=...&tokenUrl=...), or the Vite plugin's worker option`,
      'config',
    );
  return value;
};
const relayUrl = required('relayUrl');
const tokenUrl = required('tokenUrl');
const budget = param('budgetMs');

registerQuestPointsSync({
  relayUrl,
  tokenUrl,
  storageName: param('storageName'),
  tag: param('tag'),
  budgetMs: budget === undefined ? undefined : Number(budget),
});
// Nothing here serves pages: a new version may replace the old one at once.
scope.addEventListener('install', () => void scope.skipWaiting());
