// The system a model run drives: one storage name (fake-indexeddb: the origin's IndexedDB, shared by every tab),
// tabs made with createQuestPoints on it, a scripted relay over a model service (an idempotent ledger), IndexedDB
// failing on demand, and a service worker (quest-points/sw) draining the same outbox. Everything runs in one process:
// a tab's BroadcastChannel reaches the others as in a browser; there are no Web Locks in Node, so the lease in
// IndexedDB excludes the senders.
import { createQuestPoints, type AwardOutcome, type QuestPoints } from '../../../src/client/index.js';
import { registerQuestPointsSync, type QuestPointsSync, type WorkerScope } from '../../../src/sw/index.js';
import { DEFAULT_EVENT_NAME } from '../../../src/protocol/limits.js';
import { jwt } from '../fake-relay.js';

export const QUEST = 'q';
/** The tabs' own player, and another one they award and watch. */
export const USERS = ['p1', 'p2'] as const;
export type User = (typeof USERS)[number];

/** How the relay answers a send: 'lost' applies the awards, then the answer is lost (a 503 or no answer). */
export type RelayMode = 'ok' | 'lost' | 'retry' | 'reject' | 'auth';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const noAnswer = () => Promise.reject(new TypeError('fetch failed'));

/** The service: awards applied once per key (what the relay forwards), and how often each key was applied. */
export function modelService() {
  const ledger = new Map<string, { user: string; points: number; at: number }>();
  const applied = new Map<string, number>();
  /** Keys refused once: refused again. */
  const refused = new Set<string>();
  return {
    ledger,
    applied,
    refused,
    apply(key: string, user: string, points: number) {
      applied.set(key, (applied.get(key) ?? 0) + 1);
      if (!ledger.has(key)) ledger.set(key, { user, points, at: ledger.size });
    },
    total: (user: string) => [...ledger.values()].filter((e) => e.user === user).reduce((s, e) => s + e.points, 0),
    summary(user: string) {
      const entries = [...ledger.values()].filter((e) => e.user === user).reverse();
      return {
        totalPoints: entries.reduce((s, e) => s + e.points, 0),
        history: entries.map((e) => ({
          createdAt: new Date(1_700_000_000_000 + e.at).toISOString(),
          eventPoints: e.points,
          eventName: DEFAULT_EVENT_NAME,
          eventDescription: '',
        })),
      };
    },
  };
}

interface AwardSent {
  questId: string;
  serviceUserId: string;
  eventPoints: number;
  idempotencyKey: string;
}

/** The token's subject, as the relay reads it (the model's JWTs are unsigned). */
const subOf = (init: RequestInit) => {
  const token = (new Headers(init.headers).get('authorization') ?? '').replace(/^Bearer /, '');
  return JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))).sub as string;
};

/** What the relay answers an award named for another player than the token's (src/relay/access.ts), with its code. */
const PLAYER_REFUSAL = { success: false, message: "serviceUserId is not the token's sub: a player acts only on itself", code: 'player' };

/**
 * The relay as the SDK sees it, over the model service, answering as `state.mode` says (or not at all, offline). As
 * the real relay, it refuses an award named for another player than the token's (403, code 'player') before anything.
 */
export function modelRelay(service: ReturnType<typeof modelService>, state: { mode: RelayMode; offline: boolean }) {
  /** One award's fate: applied and acknowledged, refused (unless applied before: an idempotent replay), or not applied. */
  const decide = (a: AwardSent, sub: string): 'ok' | 'rejected' | 'retry' | 'lost' | 'player' => {
    if (a.serviceUserId !== sub) return 'player';
    if (state.mode === 'retry') return 'retry';
    // A refusal is final: the same award sent again is refused again (the service's rules do not change).
    if (service.refused.has(a.idempotencyKey)) return 'rejected';
    if (state.mode === 'reject' && !service.ledger.has(a.idempotencyKey)) {
      service.refused.add(a.idempotencyKey);
      return 'rejected';
    }
    service.apply(a.idempotencyKey, a.serviceUserId, a.eventPoints);
    return state.mode === 'lost' ? 'lost' : 'ok';
  };
  const lose = { n: 0 };
  return async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    // Answers come in a task of their own, as over a network.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (state.offline) return noAnswer();
    const url = new URL(String(input), 'https://game.test');
    const method = init.method ?? 'GET';
    if (state.mode === 'auth') return json(401, { success: false, message: 'token refused' });
    if (method === 'GET') {
      const user = decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
      return json(200, { success: true, data: service.summary(user) });
    }
    const body = JSON.parse(String(init.body));
    const sub = subOf(init);
    if (url.pathname.endsWith('/batch/points')) {
      const fates = (body.awards as AwardSent[]).map((a) => [a, decide(a, sub)] as const);
      if (fates.some(([, f]) => f === 'lost')) return lose.n++ % 2 ? noAnswer() : json(503, { success: false, message: 'lost' });
      if (state.mode === 'retry') return json(503, { success: false, message: 'busy' });
      return json(200, {
        success: true,
        results: fates.map(([a, f]) =>
          f === 'ok'
            ? { idempotencyKey: a.idempotencyKey, outcome: 'ok' }
            : f === 'player'
              ? { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 403, ...PLAYER_REFUSAL }
              : { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 400, message: 'refused' },
        ),
      });
    }
    // One award: POST /group-quests/:quest/points, its key in a header.
    const key = new Headers(init.headers).get('idempotency-key') ?? '';
    const fate = decide({ ...body, questId: QUEST, idempotencyKey: key }, sub);
    if (fate === 'player') return json(403, PLAYER_REFUSAL);
    if (fate === 'lost') return lose.n++ % 2 ? noAnswer() : json(503, { success: false, message: 'lost' });
    if (fate === 'retry') return json(503, { success: false, message: 'busy' });
    if (fate === 'rejected') return json(400, { success: false, message: 'refused' });
    return json(200, { success: true });
  };
}

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
  const relayState = { mode: 'ok' as RelayMode, offline: false };
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
