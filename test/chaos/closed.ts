// The chaos run's phase with every tab closed (our sender only). At the end of the chaos, awards are queued offline
// into each tab, every tab closes, and the context goes back online: the pages' service worker (pages/worker.ts),
// woken by Chromium's real `sync` event, must empty every outbox through the same faults with no page open.
import { performance } from 'node:perf_hooks';
import type { BrowserContext, Page } from 'playwright-core';
import { upstreamKey } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import type { ChaosGlobal, OursChaosPage, PlannedAward } from './pages/protocol.js';
import type { Slot } from './plan.js';
import { FORBIDDEN_EVENT, QUEST, type InFlight, type Stack } from './stack.js';
import type { LedgerEntry } from './verdict.js';

export interface ClosedTabs {
  /** Awards queued offline into the tabs in this phase (one refused on purpose). */
  awards: number;
  /** Accepted awards not in the ledger when the context went back online (every tab closed by then). */
  undeliveredAtOnline: number;
  /** Accepted awards of the whole run the ledger must hold once the outboxes are empty, and those found there. */
  expected: number;
  delivered: number;
  /** Awards still in an outbox and dead letters, per storage name, read inside the worker when the phase ended. */
  outboxes: Record<string, { queued: number; dead: number }>;
  /** From the context back online to the outboxes empty and every expected award in the ledger. */
  deliveredMs: number;
  /** Award requests through the proxy in this phase, by sender: the worker's relay paths, and the pages'. */
  workerRequests: number;
  pageRequests: number;
  /** Set by the end phase: what the first reopened pages still found queued (the worker left nothing behind). */
  leftAtReopen?: number;
}

interface PhaseTab {
  slot: Slot;
  page: Page;
  ready: boolean;
}

export interface PhaseInput {
  stack: Stack;
  context: BrowserContext;
  tabs: PhaseTab[];
  /** The phase's awards, per slot (plan.ts planClosedTabs). */
  awards: PlannedAward[][];
  /** The harness's record of every award: accepted, with its key. */
  issued: Map<number, { award: PlannedAward; user: string; accepted: boolean; key?: string }>;
  issue(slot: number, awards: PlannedAward[]): Promise<void>;
  setOffline(value: boolean): Promise<void>;
  timeoutMs: number;
}

/**
 * Counts in the worker's own IndexedDB (the outbox and dead-letter stores idb-keyval keeps, one database each), as
 * source text: a function passed to evaluate() would carry the helpers tsx adds to named functions (`__name`), which
 * the worker does not have. A database that does not exist yet is created as idb-keyval creates it (a database
 * without its store would break the SDK).
 */
const countStores = (names: string[]) => `Promise.all(${JSON.stringify(names)}.map((name) => new Promise((resolve, reject) => {
  const open = indexedDB.open(name);
  open.onupgradeneeded = () => open.result.createObjectStore('kv');
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const request = db.transaction('kv', 'readonly').objectStore('kv').count();
    request.onsuccess = () => { db.close(); resolve(request.result); };
    request.onerror = () => { db.close(); reject(request.error); };
  };
})))`;

export async function closedTabsPhase(input: PhaseInput): Promise<ClosedTabs> {
  const { stack, context, tabs, awards, issued, timeoutMs } = input;
  const storages = [...new Set(tabs.map((t) => t.slot.storage))];
  await until(async () => tabs.every((t) => t.ready), 'every tab ready', 20_000, 100);

  await input.setOffline(true);
  for (const [slot, list] of awards.entries()) await input.issue(slot, list);
  const phase = awards.flat();
  await until(async () => phase.every((a) => issued.get(a.n)?.accepted), 'every award of the phase durably queued', 15_000, 100);
  // Queued offline, so each storage's pages asked for its sync tag; Chromium holds it while the context is offline.
  for (const storage of storages) {
    const tab = tabs.find((t) => t.slot.storage === storage)!;
    const tags = () => tab.page.evaluate(() => (globalThis as ChaosGlobal<OursChaosPage>).chaos.syncTags());
    await until(async () => (await tags()).includes(`qp-${storage}`), `the sync tag qp-${storage} registered`, 10_000, 100);
  }
  for (const tab of tabs) {
    tab.ready = false;
    await tab.page.close();
  }
  if (context.pages().length) throw new Error(`closed-tab phase: ${context.pages().length} page(s) still open`);

  let workerRequests = 0;
  let pageRequests = 0;
  const count = (entry: InFlight) => {
    if (entry.slot.startsWith('sw-')) workerRequests++;
    else pageRequests++;
  };
  stack.events.on('start', count);
  const expected = [...issued.values()]
    .filter((it) => it.accepted && it.key && it.award.eventName !== FORBIDDEN_EVENT)
    .map((it) => upstreamKey(it.user, it.key!));
  const names = storages.flatMap((s) => [`${s}:outbox`, `${s}:dead`]);
  const inLedger = async () => {
    const ledger = ((await stack.admin('GET', '/state')) as { ledger: LedgerEntry[] }).ledger;
    const keys = new Set(ledger.filter((e) => e.questId === QUEST).map((e) => e.idempotencyKey));
    return expected.filter((key) => keys.has(key)).length;
  };
  const undeliveredAtOnline = expected.length - (await inLedger());
  let delivered = 0;
  let outboxes: ClosedTabs['outboxes'] = {};
  const online = performance.now();
  try {
    await input.setOffline(false);
    await until(
      async () => {
        delivered = await inLedger();
        // Read inside the worker, which Chromium keeps running for a while after its sync event.
        const worker = context.serviceWorkers()[0];
        const counts = (await worker?.evaluate(countStores(names)).catch(() => undefined)) as number[] | undefined;
        if (!counts) return false;
        outboxes = Object.fromEntries(storages.map((s, i) => [s, { queued: counts[2 * i]!, dead: counts[2 * i + 1]! }]));
        return delivered === expected.length && Object.values(outboxes).every((o) => o.queued === 0);
      },
      'the worker to empty every outbox',
      timeoutMs,
      100,
    ).catch(() => undefined);
  } finally {
    stack.events.off('start', count);
  }
  const deliveredMs = Math.round(performance.now() - online);
  return { awards: phase.length, undeliveredAtOnline, expected: expected.length, delivered, outboxes, deliveredMs, workerRequests, pageRequests };
}
