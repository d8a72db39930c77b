// The test page: the SDK (bundled by esbuild from src/client) on window, every event it emits recorded.
// Query: sub (serviceUserId), tab (label for the proxy log), storage (storageName), quest, backoffBase, backoffMax,
// poll (pollIntervalMs), backgroundSync.
import { createQuestPoints, type AwardHandle, type QuestPointsEvents } from '../../../src/client/index.js';
import { backgroundSync } from '../../../src/sw/page.js';
import { tokenFrom } from '../../../src/sw/token.js';

export interface RecordedEvent {
  name: keyof QuestPointsEvents;
  /** Date.now() in the page. */
  at: number;
  data: Record<string, unknown>;
}

const params = new URLSearchParams(location.search);
const sub = params.get('sub') ?? 'player';
const tab = params.get('tab') ?? 'main';
const questId = params.get('quest') ?? 'browser-quest';
const storageName = params.get('storage') ?? 'qp-browser';
const numberParam = (name: string, fallback: number) => (params.has(name) ? Number(params.get(name)) : fallback);
/** Tells this page load from the one before it (reload): the proxy log shows it. */
const instance = crypto.randomUUID().slice(0, 8);

const qp = createQuestPoints({
  relayUrl: '/api',
  // The operator's token URL, in the format the worker reads too.
  getToken: tokenFrom(`/token?sub=${encodeURIComponent(sub)}&tab=${encodeURIComponent(tab)}&instance=${instance}`),
  questId,
  serviceUserId: sub,
  storageName,
  backoff: { baseMs: numberParam('backoffBase', 100), maxMs: numberParam('backoffMax', 1000) },
  pollIntervalMs: numberParam('poll', 30_000),
  backgroundSync: params.get('backgroundSync') === 'true' ? backgroundSync() : undefined,
});

const events: RecordedEvent[] = [];
const errorOf = (error: unknown) => ({ name: (error as Error)?.name, message: String((error as Error)?.message ?? error) });
const keyOf = (award: { idempotencyKey: string; eventPoints: number }) => ({ key: award.idempotencyKey, points: award.eventPoints });
/** JSON-safe summaries: page.evaluate cannot carry Errors or functions. */
const summaries: { [E in keyof QuestPointsEvents]: (payload: Parameters<QuestPointsEvents[E]>[0]) => Record<string, unknown> } = {
  'award:queued': (e) => ({ ...keyOf(e.award), queueSize: e.queueSize }),
  'award:sent': (e) => keyOf(e.award),
  'award:retrying': (e) => ({ ...keyOf(e.award), reason: e.reason, status: e.status, attempt: e.attempt, delayMs: e.delayMs }),
  'award:rejected': (e) => ({ ...keyOf(e.deadLetter), status: e.deadLetter.status, message: e.deadLetter.message }),
  'points:changed': ({ view }) => ({
    totalPoints: view.totalPoints,
    confirmedPoints: view.confirmedPoints,
    pendingPoints: view.pendingPoints,
    pendingKeys: view.pending.map((a) => a.idempotencyKey),
  }),
  'queue:changed': (e) => ({ queueSize: e.queueSize }),
  'queue:drained': (e) => ({ queueSize: e.queueSize }),
  'connection:changed': (e) => ({ online: e.online }),
  'auth:required': (e) => errorOf(e.error),
  'deployment:refused': (e) => ({ status: e.status, message: e.message, code: e.code, attempt: e.attempt, delayMs: e.delayMs }),
  'environment:changed': (e) => ({ ...e.environment }),
  'storage:degraded': (e) => ({ reason: e.reason, ...(e.error === undefined ? {} : { error: errorOf(e.error) }) }),
  'sync:failed': (e) => ({ reason: e.reason, message: e.message, queueSize: e.queueSize }),
  error: (e) => ({ during: e.during, ...errorOf(e.error) }),
};
for (const name of Object.keys(summaries) as (keyof QuestPointsEvents)[])
  qp.on(name, ((payload: never) => events.push({ name, at: Date.now(), data: summaries[name](payload) })) as never);

const handles = new Map<string, AwardHandle>();
const outcomes: Record<string, string> = {};
const unwatch = qp.watchPoints(questId, sub, () => {});

/** The outbox as IndexedDB holds it, read without the SDK (never creates the database). */
async function storedOutbox(name = storageName): Promise<{ key: string; points: number }[]> {
  const dbName = `${name}:outbox`;
  if (!(await indexedDB.databases()).some((db) => db.name === dbName)) return [];
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(dbName);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    if (!db.objectStoreNames.contains('kv')) return [];
    const records = await new Promise<{ idempotencyKey: string; eventPoints: number }[]>((resolve, reject) => {
      const request = db.transaction('kv', 'readonly').objectStore('kv').getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    return records.map(keyOf);
  } finally {
    db.close();
  }
}

const page = {
  qp,
  tab,
  instance,
  storageName,
  events,
  outcomes,
  /** Queues one award; returns its key. */
  award(eventPoints: number, eventName = 'browser_award'): string {
    const handle = qp.award({ eventPoints, eventName });
    handles.set(handle.idempotencyKey, handle);
    void handle.settled.then((outcome) => (outcomes[handle.idempotencyKey] = outcome.status));
    return handle.idempotencyKey;
  },
  /** What the `persisted` promises of these awards resolved to; rejects for a key this page did not award. */
  async persisted(keys: string[]): Promise<boolean[]> {
    return Promise.all(
      keys.map((key) => {
        const handle = handles.get(key);
        if (!handle) throw new Error(`no award ${key} on this page`);
        return handle.persisted;
      }),
    );
  },
  storedOutbox,
  /** What the SDK itself reports as queued. */
  async pendingKeys(): Promise<string[]> {
    return (await qp.pending()).map((a) => a.idempotencyKey);
  },
  snapshot() {
    const { points, ...rest } = qp.getSnapshot();
    return {
      ...rest,
      points: Object.values(points).map(({ history, pending, ...totals }) => ({ ...totals, pendingKeys: pending.map((a) => a.idempotencyKey) })),
    };
  },
  unwatch,
  /** Registers the service worker at `url` (quest-points/sw.js and its query) and waits until it is active. */
  async registerWorker(url: string): Promise<void> {
    await navigator.serviceWorker.register(url, { type: 'module' });
    await navigator.serviceWorker.ready;
  },
  /** The Background Sync tags registered and not yet fired. */
  async syncTags(): Promise<string[]> {
    const registration = (await navigator.serviceWorker.getRegistration()) as
      | (ServiceWorkerRegistration & { sync?: { getTags(): Promise<string[]> } })
      | undefined;
    return (await registration?.sync?.getTags()) ?? [];
  },
};

export type SdkPage = typeof page;
(window as unknown as { sdkPage: SdkPage }).sdkPage = page;
