import { createAnnouncer } from './announce.js';
import { createApi } from './api.js';
import { DEFAULTS, storageLayout } from './defaults.js';
import { QuestPointsEmitter } from './events.js';
import { createEnvironment, initialEnvironment, isSandboxed, type EnvironmentOwner } from './environment.js';
import { createFlush } from './flush.js';
import { createLive } from './live.js';
import { createFlushLock, type Lease } from './lock.js';
import { createNotifier } from './notify.js';
import { createOutbox } from './outbox.js';
import { pairOf } from './pair.js';
import { createReads, type CacheRecord } from './reads.js';
import { createRequests } from './requests.js';
import { createRescue } from './rescue.js';
import { startClient } from './startup.js';
import { createClientState } from './state.js';
import { reporter } from './format.js';
import { idbKV, memoryKV, type KV } from './store.js';
import { createTabs } from './tabs.js';
import { createTracked } from './tracked.js';
import { createTransport } from './transport.js';
import type { QuestPoints } from './client-types.js';
import type { QuestPointsOptions } from './options.js';
import type { ClosedTabDelivery, StorageDegradedReason } from './types.js';
import { parseIds } from './validate.js';

/**
 * IndexedDB unless memory is asked for, or there is none; `missing`: wanted (in a browser) but not there (why: no
 * IndexedDB, or a sandboxed frame, which the browser refuses it).
 */
function chooseStorage({ storage, indexedDB: given }: QuestPointsOptions) {
  const present = given !== undefined || typeof indexedDB !== 'undefined';
  const wanted = storage === 'indexeddb' || (storage !== 'memory' && (present || typeof document !== 'undefined'));
  const denied = isSandboxed() && given === undefined;
  const idb = wanted && present && !denied;
  return { idb, missing: wanted && !idb ? (denied ? ('denied' as const) : ('unavailable' as const)) : undefined };
}

const isDelivery = (answer: unknown): answer is ClosedTabDelivery => typeof (answer as ClosedTabDelivery)?.available === 'boolean';

/** The start-up probes of where the game is played (probes.ts, loaded now): told once they answer, never thrown. */
function detect(options: QuestPointsOptions, env: EnvironmentOwner) {
  void import('./probes.js').then(
    ({ detectEnvironment }) => detectEnvironment(env.current(), { persist: options.persist, delivery: options.backgroundSync }).then(env.detected),
    // The chunk could not load (offline before it was cached): what the client chose stays what it says.
    () => env.detected(env.current()),
  );
}

/**
 * Assembles the client: each collaborator is made once, after everything it needs, and handed it; none is
 * referred to before it exists. The client's state has one writer (state.ts); the others dispatch to it.
 */
export function createQuestPoints(options: QuestPointsOptions): QuestPoints {
  const { storageName = DEFAULTS.storageName, pollIntervalMs = DEFAULTS.pollIntervalMs, historyLimit = DEFAULTS.historyLimit } = options;
  const layout = storageLayout(storageName);
  const { idb, missing } = chooseStorage(options);
  // Records of a newer stored format (format.ts): left in the store; the first is a console warning and an `error` event.
  const newer = reporter((error) => events.emit('error', { error, during: 'format' }));
  const kv = <T>(name: string): KV<T> => (idb ? idbKV<T>(name, options.indexedDB, newer) : memoryKV<T>());
  const own =
    options.questId !== undefined && options.serviceUserId !== undefined ? pairOf(parseIds(options.questId, options.serviceUserId)) : undefined;
  const events = new QuestPointsEmitter();
  // Where the game is played and what holds here (environment.ts): in the state, so the snapshot shows it.
  const environment = initialEnvironment(idb ? 'indexeddb' : 'memory', idb ? undefined : (missing ?? 'option'));

  const store = createClientState({
    online: true,
    deadLetterCount: 0,
    authRequired: false,
    deploymentRefused: false,
    environment,
    closed: false,
    loaded: false,
  });
  const env = createEnvironment(
    () => store.get().environment,
    (changed) => {
      store.dispatch({ type: 'environment', environment: changed });
      events.emit('environment:changed', { environment: changed });
    },
  );
  const requestSync = () => {
    // Its answer (a refused registration: a frame, no worker) is what the environment says from then on.
    void Promise.resolve(options.backgroundSync?.()).then(
      (answer) => isDelivery(answer) && env.delivery(answer),
      () => {},
    );
  };
  // The storage kind is held once, in the environment: the snapshot's `storage` says 'degraded' from it (state.ts).
  const degrade = (reason: StorageDegradedReason, error?: unknown) => {
    env.storage('memory', reason);
    events.emit('storage:degraded', { reason, error });
  };
  // The sending chunk is fetched with the HTTP layer (the first read, at start, usually online), not at the first
  // send, which may come offline: a chunk the browser could not fetch then is a console error on the game's page.
  const transport = createTransport(options, () => {
    import('./send-awards.js').catch(() => undefined);
    return import('./http.js');
  });
  const cache = kv<CacheRecord>(layout.cache);
  const tabs = createTabs(layout.channel, idb);
  const outbox = createOutbox({
    queue: kv(layout.outbox),
    dead: kv(layout.dead),
    degraded: degrade,
    // Awards this tab committed: the other tabs are told; offline, the worker is asked to deliver them (it reads the store).
    committed(awards) {
      tabs.tell(awards);
      if (!store.get().online) requestSync();
    },
    durable: idb,
    rescue: idb ? createRescue(layout.rescue, newer) : undefined,
    legacy: idb ? () => import('./legacy.js') : undefined,
    // Called from a store read, after the notifier below exists.
    reconciled(pairs) {
      for (const pair of pairs) notifier.changed(pair);
      notifier.queueChanged();
    },
  });
  const live = createLive(outbox.pendingOf, historyLimit);
  const tracked = createTracked({ own, release: live.release });
  const notifier = createNotifier({ events, live, own, queueSize: outbox.size, state: store, used: tracked.used, pairs: tracked.pairs });
  const requests = createRequests(transport, cache, (answered) => store.dispatch({ type: 'call', answered }));
  const reads = createReads({ live, cache, fetch: requests.summary, changed: notifier.changed, post: tabs.post, tracked });
  const announcer = createAnnouncer({ store, events, outbox, notifier, reads, tabs });
  tabs.listen(announcer.heard);
  const flush = createFlush({
    store,
    events,
    outbox,
    transport,
    announcer,
    reads,
    lock: createFlushLock(layout.channel, idb ? { store: cache as KV<Lease>, load: () => import('./lease.js') } : undefined, 0, (error) =>
      events.emit('error', { error, during: 'lock' }),
    ),
    backoff: { ...DEFAULTS.backoff, ...options.backoff },
    authPauseMs: pollIntervalMs,
    requestSync,
    // Awards belong to their player: a client made for one sends only that player's (players.ts).
    player: options.serviceUserId,
    invalidateToken: transport.invalidate,
  });
  // IndexedDB works again (the poll's recovery): awards are kept there from now on.
  const recovered = () => env.storage('indexeddb');
  const stop = startClient({
    store,
    outbox,
    notifier,
    reads,
    announcer,
    flush,
    transport,
    own,
    player: options.serviceUserId,
    pollIntervalMs,
    recovered,
  });
  if (missing) queueMicrotask(() => degrade(missing));
  detect(options, env);
  return createApi({ options, store, events, outbox, live, tracked, notifier, requests, reads, tabs, announcer, flush, stop });
}
