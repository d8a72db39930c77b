// The page of "our" sender: the quest-points SDK as a game would use it.
import { createStore, get, keys } from 'idb-keyval';
import { createQuestPoints, type AwardHandle, type AwardOutcome } from '../../../src/client/index.js';
import { pageParams, report, type PlannedAward } from './protocol.js';

const { slot, storage, user, quest, token } = pageParams();
const qp = createQuestPoints({
  relayUrl: `/api/s/${slot}`,
  getToken: () => token,
  questId: quest,
  serviceUserId: user,
  storageName: storage,
  backoff: { baseMs: 100, maxMs: 2000 },
  pollIntervalMs: 1000,
});
// The SDK's own outbox database (idb-keyval: one database per store, object store 'kv'), read back to see the commit.
const outbox = createStore(`${storage}:outbox`, 'kv');

/**
 * The SDK offers no "persisted" signal (award:queued fires before the IndexedDB commit), so an award counts as
 * accepted once the page reads it back from the outbox, or once it has been answered (it was committed before it
 * was sent).
 */
async function confirmDurable(n: number, handle: AwardHandle) {
  let outcome: AwardOutcome | undefined;
  void handle.settled.then((o) => (outcome = o));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (outcome && outcome.status !== 'closed') break;
    if ((await get(handle.idempotencyKey, outbox).catch(() => undefined)) !== undefined) break;
  }
  report({ t: 'accepted', n, key: handle.idempotencyKey });
}

(globalThis as any).chaos = {
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
  /** Straight from IndexedDB: what would survive this page. */
  /** Idempotency keys straight from IndexedDB: what would survive this page. */
  stored: async () => (await keys(outbox)).map(String),
  deadLetters: async () => (await qp.deadLetters()).map((d) => ({ key: d.idempotencyKey, description: d.eventDescription ?? '', status: d.status, message: d.message })),
};
report({ t: 'ready' });
