// The baseline: a plain background-sync queue, as Workbox's BackgroundSyncPlugin replays one. An item is taken off
// the queue before it is sent; a network error puts it back at the head (if the page is still there to do it).
// A 5xx or 429 answer is resent once at once (the usual "retry once"), then the item is dropped; any other answer
// ends it. No idempotency key; the spec's single-award route.
import { type ChaosGlobal, type ChaosPage, pageParams, report, type PlannedAward } from './protocol.js';

const { slot, storage, user, quest, token } = pageParams();
const queueKey = `naive:${storage}`;
type Item = PlannedAward;
const load = (): Item[] => JSON.parse(localStorage.getItem(queueKey) ?? '[]');
const save = (items: Item[]) => localStorage.setItem(queueKey, JSON.stringify(items));

async function send(item: Item): Promise<number> {
  const response = await fetch(`/api/s/${slot}/group-quests/${encodeURIComponent(quest)}/points`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ serviceUserId: user, eventPoints: item.points, eventName: item.eventName, eventDescription: item.description }),
  });
  await response.text().catch(() => '');
  return response.status;
}

/** One replayer per queue, as one service worker replays it (Web Locks stand in for the worker). */
async function replay(): Promise<void> {
  await navigator.locks.request(queueKey, { ifAvailable: true }, async (lock) => {
    if (!lock) return;
    for (;;) {
      const items = load();
      const item = items.shift();
      if (!item) return;
      save(items);
      try {
        let status = await send(item);
        // One retry of a retryable answer; the first answer is reported too.
        if (status >= 500 || status === 429) {
          report({ t: 'answer', n: item.n, status });
          status = await send(item);
        }
        report({ t: 'answer', n: item.n, status });
      } catch {
        save([item, ...load()]);
        report({ t: 'network', n: item.n });
        return;
      }
    }
  });
}

let timer: ReturnType<typeof setTimeout> | undefined;
const soon = () => {
  if (timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    void replay();
  }, 50);
};
// A sync event comes on reconnect and then periodically; a 1 s timer stands in for the browser's schedule.
addEventListener('online', soon);
setInterval(soon, 1000);
soon();

const chaos: ChaosPage = {
  issue(awards: PlannedAward[]) {
    save([...load(), ...awards]);
    for (const a of awards) report({ t: 'accepted', n: a.n });
    soon();
  },
  flush: () => replay(),
  pending: async () => load().length,
  /** Descriptions of the items still queued. */
  stored: async () => load().map((item) => item.description),
  deadLetters: async () => [],
};
(globalThis as ChaosGlobal).chaos = chaos;
report({ t: 'ready' });
