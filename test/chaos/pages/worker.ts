// The chaos pages' service worker, as a game with a worker of its own writes it: one registerQuestPointsSync() per
// storage name its pages use (two players here), each with its own tag, relay path and token URL. The storage
// names come in the script's URL (?storages=game-a,game-b); the front answers each one's player a token.
import { registerQuestPointsSync } from '../../../src/sw/index.js';

interface InstallScope {
  location: Location;
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install', listener: () => void): void;
  addEventListener(type: 'sync' | 'periodicsync', listener: (event: Event & { tag: string }) => void): void;
}

/** The harness's record of every sync event and how its drain ended (the event's own promise, via deliver()). */
const tell = (line: string) => void fetch(`/worker-log?${new URLSearchParams({ line })}`, { method: 'POST' }).catch(() => {});

const scope = globalThis as unknown as InstallScope;
const storages = (new URL(scope.location.href).searchParams.get('storages') ?? '').split(',').filter(Boolean);
for (const storage of storages) {
  const sync = registerQuestPointsSync({
    relayUrl: `/api/s/sw-${storage}`,
    tokenUrl: `/token?storage=${encodeURIComponent(storage)}`,
    storageName: storage,
    tag: `qp-${storage}`,
    // As the pages: the chaos share's faults ask for Retry-After 0, so short waits between attempts.
    backoff: { baseMs: 100, maxMs: 2000 },
  });
  // Added after the SDK's listener: deliver() answers the drain that event started.
  for (const type of ['sync', 'periodicsync'] as const)
    scope.addEventListener(type, (event) => {
      if (event.tag !== `qp-${storage}`) return;
      const started = Date.now();
      sync.deliver().then(
        () => tell(`${type} ${event.tag}: ok in ${Date.now() - started} ms`),
        (error: Error) => tell(`${type} ${event.tag}: failed in ${Date.now() - started} ms: ${error?.message ?? error}`),
      );
    });
}
// Nothing here serves pages: the worker may take over at once.
scope.addEventListener('install', () => void scope.skipWaiting());
