import { createApi } from './api.js';
import { DEFAULTS, storageLayout } from './defaults.js';
import { QuestPointsEmitter } from './events.js';
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
import type { QuestPoints, QuestPointsOptions } from './types.js';
import { parseIds } from './validate.js';

/** IndexedDB unless memory is asked for, or there is none; `missing`: wanted (in a browser) but not there. */
function chooseStorage(storage: QuestPointsOptions['storage']) {
  const present = typeof indexedDB !== 'undefined';
  const wanted = storage === 'indexeddb' || (storage !== 'memory' && (present || typeof document !== 'undefined'));
  return { idb: wanted && present, missing: wanted && !present };
}

/** What a snapshot shows of the client's state (not its life cycle). */
const shown = ({ closed, loaded, ...status }: ClientState) => status;

/** Assembles the client: each collaborator is made once and handed what it needs; the session holds the state. */
export function createQuestPoints(options: QuestPointsOptions): QuestPoints {
  const { storageName = DEFAULTS.storageName, pollIntervalMs = DEFAULTS.pollIntervalMs, historyLimit = DEFAULTS.historyLimit } = options;
  const layout = storageLayout(storageName);
  const { idb, missing } = chooseStorage(options.storage);
  const kv = <T>(name: string): KV<T> => (idb ? idbKV<T>(name) : memoryKV<T>());
  const state: ClientState = {
    online: true,
    deadLetterCount: 0,
    authRequired: false,
    storage: idb ? 'indexeddb' : 'memory',
    closed: false,
    loaded: false,
  };
  const events = new QuestPointsEmitter();
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
  const notifier = createNotifier({ events, live, own, queueSize: () => outbox.mirror.size, status: () => shown(state) });
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
    requestSync: () => options.backgroundSync?.(),
  });
  if (missing) queueMicrotask(() => session.degrade('unavailable'));
  return createApi({ options, state, events, outbox, live, notifier, requests, reads, tabs, flusher, session });
}
