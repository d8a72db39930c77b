// The page of "our" sender: the quest-points SDK as a game would use it.
import { createStore, keys } from 'idb-keyval';
import { createQuestPoints, type AwardHandle } from '../../../src/client/index.js';
import { backgroundSync } from '../../../src/sw/page.js';
import { type ChaosGlobal, type OursChaosPage, pageParams, report, type PlannedAward } from './protocol.js';

const { slot, storage, user, quest, token } = pageParams();
const qp = createQuestPoints({
  relayUrl: `/api/s/${slot}`,
  getToken: () => token,
  questId: quest,
  serviceUserId: user,
  storageName: storage,
  backoff: { baseMs: 100, maxMs: 2000 },
  pollIntervalMs: 1000,
  // The harness registers the pages' service worker (pages/worker.ts): it delivers this storage's outbox on this tag.
  backgroundSync: backgroundSync({ tag: `qp-${storage}` }),
});
qp.on('storage:degraded', ({ reason, error }) =>
  report({ t: 'degraded', reason, message: String((error as Error)?.message ?? error).slice(0, 200) }),
);
// The SDK's own outbox database (one database per store, object store 'kv'), read directly at the end.
const outbox = createStore(`${storage}:outbox`, 'kv');

/** Accepted = `persisted` resolved true (committed to IndexedDB). False (memory only) is reported as not accepted. */
async function confirmDurable(n: number, handle: AwardHandle) {
  if (await handle.persisted) report({ t: 'accepted', n, key: handle.idempotencyKey });
}

const chaos: OursChaosPage = {
  issue(awards: PlannedAward[]) {
    for (const a of awards) {
      try {
        const handle = qp.award({ eventPoints: a.points, eventName: a.eventName, eventDescription: a.description });
        void confirmDurable(a.n, handle);
      } catch (error) {
        report({ t: 'refused', n: a.n, message: String((error as Error)?.message ?? error) });
      }
    }
  },
  flush: () => qp.flush(),
  pending: async () => (await qp.pending()).length,
  /** Idempotency keys straight from IndexedDB, plus any pagehide rescue left in localStorage: what is still queued. */
  stored: async () => {
    const rescued = Object.keys(localStorage)
      .filter((k) => k.startsWith(`quest-points:${storage}:rescue:`))
      .flatMap((k) => (JSON.parse(localStorage.getItem(k) ?? '[]') as { idempotencyKey: string }[]).map((a) => a.idempotencyKey));
    return [...(await keys(outbox)).map(String), ...rescued];
  },
  /** The Background Sync tags registered and not yet fired. */
  syncTags: async () => {
    const registration = (await navigator.serviceWorker.getRegistration()) as
      | (ServiceWorkerRegistration & { sync?: { getTags(): Promise<string[]> } })
      | undefined;
    return (await registration?.sync?.getTags()) ?? [];
  },
  /** Registers the pages' service worker for this origin (once per context) and waits until it is active. */
  registerWorker: async (url: string) => {
    await navigator.serviceWorker.register(url, { type: 'module' });
    await navigator.serviceWorker.ready;
  },
  deadLetters: async () =>
    (await qp.deadLetters()).map((d) => ({ key: d.idempotencyKey, description: d.eventDescription ?? '', status: d.status, message: d.message })),
};
(globalThis as ChaosGlobal).chaos = chaos;
report({ t: 'ready' });
