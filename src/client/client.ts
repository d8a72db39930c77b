import { createApi } from './api.js';
import { DEFAULTS, storageLayout } from './defaults.js';
import { QuestPointsEmitter } from './events.js';
import { createDurability } from './durability.js';
import { createEnvironment, isSandboxed, type EnvironmentOwner } from './environment.js';
import { createFlusher } from './flusher.js';
import { createLive, pairOf } from './live.js';
import { createFlushLock, type Lease } from './lock.js';
import { createNotifier } from './notify.js';
import { createOutbox } from './outbox.js';
import { createReads, type CacheRecord } from './reads.js';
import { createRequests } from './requests.js';
import { createRescue } from './rescue.js';
import { createSession, type ClientState } from './session.js';
import { idbKV, memoryKV, type KV } from './store.js';
import { createTabs } from './tabs.js';
import { createTransport } from './transport.js';
import type { ClosedTabDelivery, QuestPoints, QuestPointsOptions } from './types.js';
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

/** What a snapshot shows of the client's state (not its life cycle). */
const shown = ({ closed, loaded, ...status }: ClientState) => status;

const isDelivery = (answer: unknown): answer is ClosedTabDelivery => typeof (answer as ClosedTabDelivery)?.available === 'boolean';

/** The start-up probes of where the game is played: told once they answer, never thrown (environment.ts). */
function detect(options: QuestPointsOptions, env: EnvironmentOwner) {
  const sync = options.backgroundSync;
  void import('./probes.js').then(
    ({ detectEnvironment }) =>
      detectEnvironment(env.current(), { persist: options.persist, delivery: sync && { check: sync.check } }).then(env.detected),
    // The chunk could not load (offline before it was cached): what the client chose stays what it says.
    () => env.detected({ partitioned: env.current().partitioned, persistent: null, closedTabDelivery: env.current().closedTabDelivery }),
  );
}

/** Assembles the client: each collaborator is made once and handed what it needs; the session holds the state. */
export function createQuestPoints(options: QuestPointsOptions): QuestPoints {
  const { storageName = DEFAULTS.storageName, pollIntervalMs = DEFAULTS.pollIntervalMs, historyLimit = DEFAULTS.historyLimit } = options;
  const layout = storageLayout(storageName);
  const { idb, missing } = chooseStorage(options);
  const kv = <T>(name: string): KV<T> => (idb ? idbKV<T>(name, options.indexedDB) : memoryKV<T>());
  const state: ClientState = {
    online: true,
    deadLetterCount: 0,
    authRequired: false,
    storage: idb ? 'indexeddb' : 'memory',
    closed: false,
    loaded: false,
  };
  const events = new QuestPointsEmitter();
  const env = createEnvironment(idb ? 'indexeddb' : 'memory', idb ? undefined : (missing ?? 'option'), (environment) => {
    notifier.changed();
    events.emit('environment:changed', { environment });
  });
  const transport = createTransport(options);
  const cache = kv<CacheRecord>(layout.cache);
  const tabs = createTabs(layout.channel, idb, (message) => session.heard(message));
  const outbox = createOutbox({
    queue: kv(layout.outbox),
    dead: kv(layout.dead),
    degraded: (reason, error) => session.degrade(reason, error),
    committed: (recs) => session.committed(recs),
    durable: idb,
    rescue: idb ? createRescue(layout.rescue) : undefined,
  });
  const live = createLive(outbox.pendingOf, historyLimit);
  const own =
    options.questId !== undefined && options.serviceUserId !== undefined ? pairOf(parseIds(options.questId, options.serviceUserId)) : undefined;
  const notifier = createNotifier({
    events,
    live,
    own,
    queueSize: () => outbox.mirror.size,
    status: () => ({ ...shown(state), environment: env.current() }),
  });
  const requests = createRequests(transport, cache, (online) => session.setOnline(online));
  const reads = createReads({ live, cache, fetch: requests.summary, changed: notifier.changed, post: tabs.post });
  const flusher = createFlusher({
    outbox,
    transport,
    lock: createFlushLock(layout.channel, idb ? (cache as KV<Lease>) : undefined),
    backoff: { ...DEFAULTS.backoff, ...options.backoff },
    authPauseMs: pollIntervalMs,
    settle: (head, results) => session.settle(head, results),
  });
  const session = createSession({
    state,
    events,
    outbox,
    notifier,
    reads,
    tabs,
    flusher,
    transport,
    own,
    pollIntervalMs,
    durability: createDurability(),
    requestSync() {
      // Its answer (a refused registration: a frame, no worker) is what the environment says from then on.
      void Promise.resolve(options.backgroundSync?.()).then(
        (answer) => isDelivery(answer) && env.delivery(answer),
        () => {},
      );
    },
    storageChanged: env.storage,
  });
  if (missing) queueMicrotask(() => session.degrade(missing));
  detect(options, env);
  return createApi({ options, state, events, outbox, live, notifier, requests, reads, tabs, flusher, session });
}
