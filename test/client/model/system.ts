// The system a model run drives: one storage name (fake-indexeddb: the origin's IndexedDB, shared by every tab),
// tabs made with createQuestPoints on it for either of two players, a scripted relay over a model service (relay.ts), IndexedDB
// failing on demand, and a service worker (quest-points/sw) draining the same outbox. Everything runs in one process:
// a tab's BroadcastChannel reaches the others as in a browser; there are no Web Locks in Node, so the lease in
// IndexedDB excludes the senders.
import { createQuestPoints, type AwardOutcome, type QuestPoints } from '../../../src/client/index.js';
import { registerQuestPointsSync, type QuestPointsSync, type WorkerScope } from '../../../src/sw/index.js';
import { jwt } from '../fake-relay.js';
import { json, modelRelay, modelService, noAnswer, QUEST, type RelayMode, type RelayState } from './relay.js';

/** Two players on one profile: a tab is either's, and awards either. */
export const USERS = ['p1', 'p2'] as const;
export type User = (typeof USERS)[number];

export { QUEST, type RelayMode };

/** IndexedDB failing as a full disk (writes) or a closed connection (every transaction) for one storage name, and working again. */
export function storageSwitch(storageName: string) {
  const put = IDBObjectStore.prototype.put;
  const transaction = IDBDatabase.prototype.transaction;
  const ours = (db: IDBDatabase) => db.name.startsWith(`${storageName}:`);
  const state = { failing: undefined as 'quota' | 'closed' | undefined };
  return {
    state,
    fail(kind: 'quota' | 'closed') {
      this.recover();
      state.failing = kind;
      if (kind === 'quota')
        IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
          if (ours(this.transaction.db)) throw Object.assign(new Error('quota exceeded'), { name: 'QuotaExceededError' });
          return put.apply(this, args);
        };
      else
        IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
          if (ours(this) && args[1] !== 'versionchange')
            throw Object.assign(new Error('The database connection is closing.'), { name: 'InvalidStateError' });
          return transaction.apply(this, args);
        };
    },
    recover() {
      state.failing = undefined;
      IDBObjectStore.prototype.put = put;
      IDBDatabase.prototype.transaction = transaction;
    },
  };
}

/** One tab: its client, what each of its awards became, and what it watches. */
export interface Tab {
  qp: QuestPoints;
  /** Its player: the client's serviceUserId, and its token's subject. */
  player: User;
  /** Its requests fail from now on (a crashed tab sends nothing more). */
  dead: boolean;
  closed: boolean;
  awards: Map<string, { user: User; points: number; persisted?: boolean; outcome?: AwardOutcome; resolutions: number }>;
  /** award:sent events per key: each must come once. */
  sentEvents: Map<string, number>;
  watches: Map<User, (() => void)[]>;
  errors: { error: unknown; during: string }[];
}

let names = 0;

/** A fresh system: a storage name of its own, the service, the relay, the storage switch; tabs and a worker on demand. */
export function createSystem() {
  const storageName = `model-${process.pid}-${++names}`;
  const service = modelService();
  const relayState: RelayState = { mode: 'ok', offline: false, retryAfterS: 0 };
  /** Dead letters retried: the letter's key -> the keys retryDeadLetter() answered (one award: at most one applied). */
  const retries = new Map<string, Set<string>>();
  const relay = modelRelay(service, relayState);
  const storage = storageSwitch(storageName);
  const tabs: Tab[] = [];
  const worker: { sync?: QuestPointsSync } = {};
  /** Who is signed in on the site: the player whose token the worker's tokenUrl answers. */
  const session = { player: 'p1' as User };

  function openTab(player: User = 'p1'): Tab {
    const tab: Tab = {
      qp: undefined as unknown as QuestPoints,
      player,
      dead: false,
      closed: false,
      awards: new Map(),
      sentEvents: new Map(),
      watches: new Map(),
      errors: [],
    };
    tab.qp = createQuestPoints({
      relayUrl: '/api',
      getToken: () => jwt(player, Date.now() / 1000 + 3600),
      questId: QUEST,
      serviceUserId: player,
      storageName,
      storage: 'indexeddb',
      flushDelayMs: 1,
      pollIntervalMs: 20,
      timeoutMs: 2000,
      backoff: { baseMs: 1, maxMs: 10 },
      fetch: (input, init) => (tab.dead ? noAnswer() : relay(input, init)),
    });
    tab.qp.on('award:sent', ({ award }) => tab.sentEvents.set(award.idempotencyKey, (tab.sentEvents.get(award.idempotencyKey) ?? 0) + 1));
    tab.qp.on('error', (e) => tab.errors.push(e));
    tabs.push(tab);
    return tab;
  }

  /** The worker's global scope: its fetch is the page's origin (the token URL) and the relay. */
  function startWorker(): QuestPointsSync {
    if (worker.sync) return worker.sync;
    const scope = Object.assign(new EventTarget(), { location: new URL('https://game.test/sw.js') }) as unknown as WorkerScope;
    worker.sync = registerQuestPointsSync(
      { relayUrl: '/api', tokenUrl: '/token', storageName, backoff: { baseMs: 1, maxMs: 10 }, budgetMs: 100, timeoutMs: 2000 },
      scope,
    );
    return worker.sync;
  }

  /** The worker's fetch: the token URL answers; the rest is the relay. */
  const workerFetch = async (input: RequestInfo | URL, init?: RequestInit) =>
    new URL(String(input), 'https://game.test').pathname === '/token'
      ? json(200, { token: jwt(session.player, Date.now() / 1000 + 3600) })
      : relay(input, init);

  return {
    storageName,
    service,
    relayState,
    retries,
    session,
    storage,
    tabs,
    openTab,
    startWorker,
    workerFetch,
    alive: () => tabs.filter((t) => !t.closed),
    /** Closes what is open. (The databases stay: the SDK keeps its connections, so a delete would wait for ever.) */
    async dispose() {
      storage.recover();
      worker.sync?.close();
      await Promise.all(tabs.filter((t) => !t.closed).map((t) => t.qp.close()));
    },
  };
}

export type System = ReturnType<typeof createSystem>;
