import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ChaosGlobal, OursChaosPage, PageReport, PlannedAward } from './pages/protocol.js';
import { closedTabsPhase, type ClosedTabs } from './closed.js';
import { chaosFaults, planChaos, planClosedTabs, SLOTS, type ChaosSize, type Sender } from './plan.js';
import { createRng } from './rng.js';
import { upstreamKey } from '../helpers/fixtures.js';
import { drainPages, quiescent, stored } from './queues.js';
import { QUEST, type InFlight, type Stack } from './stack.js';
import { judge, type LedgerEntry, type Verdict } from './verdict.js';
import { operatorReport, prepareOperator, runOperatorStep, type OperatorReport } from './operator-run.js';

export interface ChaosOptions extends ChaosSize {
  sender: Sender;
  seed: number;
  /** How long the end phase may take to empty every queue. */
  drainTimeoutMs: number;
  /** Retry-After of the injected 429 and 503 answers; default 1 s (the full run). */
  retryAfterSeconds?: number;
  /** Awards per tab queued offline just before every tab closes, for the service worker alone to deliver. Default 10; 0: no such phase. */
  closedTabAwards?: number;
  log?: (line: string) => void;
}

/** What the harness saw of one award, outside the page. */
export interface Issued {
  award: PlannedAward;
  user: string;
  storage: string;
  /** The tab (slot) the award was issued into. */
  tab: string;
  /** Set once the page reported it durably queued. */
  key?: string;
  accepted: boolean;
}

export interface ChaosRun {
  sender: Sender;
  seed: number;
  verdict: Verdict;
  chaos: {
    reloads: number;
    closes: number;
    /** Reloads and closes that hit a page while one of its award requests was in flight. */
    midFlush: number;
    offlineToggles: number;
    relayRestarts: number;
  };
  /** The operator's chaos and what it measured (a stack with StackOptions.operator). */
  operator?: OperatorReport;
  faults: Record<string, number>;
  serviceRequests: number;
  /** Share of the service's requests answered with an injected fault. */
  faultRate: number;
  proxyStatuses: Record<string, number>;
  pageErrors: string[];
  /** Award requests the pages' service worker sent over the whole run (ours: registered from the first tab on). */
  workerRequests: number;
  /** Pages whose storage fell back to memory (storage:degraded), when and why: their awards skip the queue. */
  degraded: string[];
  /** The phase with every tab closed (ours only). */
  closedTabs?: ClosedTabs;
  wallMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Tab {
  slot: (typeof SLOTS)[number];
  page: Page;
  ready: boolean;
}

export async function runChaos(stack: Stack, browser: Browser, options: ChaosOptions): Promise<ChaosRun> {
  const { sender, seed, log = () => {} } = options;
  const started = performance.now();
  const rng = createRng(seed ^ 0x5eed);
  await stack.admin('POST', '/reset');
  stack.statuses.clear();
  stack.balancer.reset();
  const operatorCounts = await prepareOperator(stack);
  await stack.setFaults({
    ...chaosFaults(seed),
    ...(options.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: options.retryAfterSeconds }),
  });

  const issued = new Map<number, Issued>();
  const answers = new Map<number, number[]>();
  const pageErrors: string[] = [];
  /** Pages whose storage fell back to memory, when and why. */
  const degraded: string[] = [];
  const chaos = { reloads: 0, closes: 0, midFlush: 0, offlineToggles: 0, relayRestarts: 0 };
  const tokens = new Map(await Promise.all(SLOTS.map(async (s) => [s.user, await stack.token(s.user)] as const)));
  const context: BrowserContext = await browser.newContext();
  const tabs: Tab[] = [];

  await context.exposeBinding('qpReport', ({ page }, message: PageReport) => {
    const tab = tabs.find((t) => t.page === page);
    if (message.t === 'ready') {
      if (tab) tab.ready = true;
      return;
    }
    if (message.t === 'degraded') {
      degraded.push(`${((performance.now() - started) / 1000).toFixed(1)} s ${tab?.slot.id ?? '?'}: ${message.reason} (${message.message})`);
      return;
    }
    const entry = issued.get(message.n);
    if (!entry) return;
    if (message.t === 'accepted') {
      entry.accepted = true;
      entry.key = message.key;
    } else if (message.t === 'answer') answers.set(message.n, [...(answers.get(message.n) ?? []), message.status]);
  });

  const url = (slot: Tab['slot']) =>
    `${stack.origin}/${sender}.html?` +
    new URLSearchParams({ slot: slot.id, storage: slot.storage, user: slot.user, quest: QUEST, token: tokens.get(slot.user)! });

  async function waitReady(tab: Tab, timeoutMs = 15_000) {
    for (const until = Date.now() + timeoutMs; !tab.ready; await sleep(10))
      if (Date.now() > until) throw new Error(`tab ${tab.slot.id} did not load within ${timeoutMs} ms`);
  }

  /** Loads (or reloads) the tab's page; a load that fails (the browser is offline) is tried again until online. */
  async function load(tab: Tab, how: 'goto' | 'reload') {
    tab.ready = false;
    for (let attempt = 0; ; attempt++) {
      try {
        await (how === 'reload' && attempt === 0 ? tab.page.reload() : tab.page.goto(url(tab.slot)));
        return await waitReady(tab);
      } catch (error) {
        if (attempt >= 100)
          throw new Error(
            `tab ${tab.slot.id} could not load: ${String((error as Error).message)
              .split('\n')[0]!
              .replace(/\?\S*/, '?...')}`,
          );
        await sleep(200);
      }
    }
  }

  async function openPage(tab: Omit<Tab, 'page'> & { page?: Page }) {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${tab.slot.id}: ${error.message}`));
    tab.page = page;
    await load(tab as Tab, 'goto');
  }

  for (const slot of SLOTS) {
    const tab = { slot, ready: false } as Tab;
    tabs.push(tab);
    await openPage(tab);
  }
  // Ours: the pages' service worker, for the whole run. Its sync events (a page asks for one whenever a send fails
  // or an award is queued offline) compete with the pages for the outbox lock throughout the chaos.
  let workerRequests = 0;
  const countWorker = (entry: InFlight) => {
    if (entry.slot.startsWith('sw-')) workerRequests++;
  };
  stack.events.on('start', countWorker);
  if (sender === 'ours') {
    const storages = [...new Set(SLOTS.map((s) => s.storage))].join(',');
    await tabs[0]!.page.evaluate((u) => (globalThis as ChaosGlobal<OursChaosPage>).chaos.registerWorker(u), `/sw.js?storages=${storages}`);
  }

  /** A tab with an award request in flight (waiting up to timeoutMs for one), else undefined. */
  async function tabInFlight(timeoutMs: number): Promise<Tab | undefined> {
    const find = () => {
      const busy = new Set(stack.inFlight().map((f) => f.slot));
      return tabs.find((t) => t.ready && busy.has(t.slot.id));
    };
    for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(5)) {
      const tab = find();
      if (tab) return tab;
    }
    return undefined;
  }

  async function disrupt(kind: 'reload' | 'close') {
    const busy = await tabInFlight(1500);
    const tab = busy ?? tabs.find((t) => t.ready) ?? tabs[0]!;
    if (busy) chaos.midFlush++;
    tab.ready = false;
    if (kind === 'reload') {
      chaos.reloads++;
      await load(tab, 'reload');
    } else {
      chaos.closes++;
      await tab.page.close().catch(() => {});
      await sleep(rng.int(50, 600));
      await openPage(tab);
    }
  }

  // Reloads run one after another (never two on one tab); offline toggles and the relay restart beside them.
  let disruptions = Promise.resolve();
  let offline = Promise.resolve();
  let restart = Promise.resolve();
  const chain = (p: Promise<void>, work: () => Promise<void>) =>
    p.then(work).catch((error) => void pageErrors.push(`harness: ${(error as Error).message}`));

  async function issue(slotIndex: number, awards: PlannedAward[]) {
    let tab = tabs[slotIndex]!;
    for (const until = Date.now() + 20_000; !tab.ready; await sleep(10)) {
      tab = tabs.find((t) => t.ready) ?? tab;
      if (Date.now() > until) throw new Error('no tab ready to issue into for 20 s');
    }
    for (const award of awards) issued.set(award.n, { award, user: tab.slot.user, storage: tab.slot.storage, tab: tab.slot.id, accepted: false });
    // A tab reloaded under this call loses the awards it had not made durable: "never accepted", counted apart.
    await tab.page.evaluate((list) => (globalThis as ChaosGlobal).chaos.issue(list), awards).catch(() => {});
  }

  /** Playwright refuses the switch while one of the context's pages is being closed: try again. */
  async function setOffline(value: boolean) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await context.setOffline(value);
      } catch (error) {
        if (attempt >= 20) throw error;
        await sleep(50);
      }
    }
  }

  const steps = planChaos(seed, options, sender);
  let issuedSteps = 0;
  for (const step of steps) {
    if (step.kind === 'issue') {
      await issue(step.slot, step.awards);
      if (++issuedSteps % 200 === 0) log(`${sender}: ${issued.size} awards issued, ${chaos.reloads + chaos.closes} reloads/closes`);
      await sleep(rng.int(0, options.stepMs * 2));
    } else if (step.kind === 'reload' || step.kind === 'close') {
      const { kind } = step;
      disruptions = chain(disruptions, () => disrupt(kind));
    } else if (step.kind === 'offline') {
      const { ms } = step;
      offline = chain(offline, async () => {
        chaos.offlineToggles++;
        await setOffline(true);
        await sleep(ms);
        await setOffline(false);
      });
    } else if (step.kind === 'restart-relay') {
      const { downMs } = step;
      restart = chain(restart, async () => {
        chaos.relayRestarts++;
        await stack.restartRelay(downMs);
      });
    } else {
      // The operator's steps go one after the other, beside the browser chaos.
      restart = chain(restart, () => runOperatorStep(stack, step, operatorCounts, log));
    }
  }
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  log(`${sender}: issue steps done at ${at()}`);
  await Promise.all([disruptions, offline, restart]);
  await setOffline(false);
  log(`${sender}: chaos done at ${at()} (${issued.size} awards)`);

  const drain = (pages: Tab[]) =>
    drainPages(
      pages.map((t) => t.page),
      options.drainTimeoutMs,
      (left) => log(`${sender}: ${left} still queued at ${at()}`),
    );
  const onePerStorage = (list: Tab[]) => list.filter((tab, i) => list.findIndex((t) => t.slot.storage === tab.slot.storage) === i);

  const perTab = options.closedTabAwards ?? 10;
  let closedTabs: ClosedTabs | undefined;
  if (sender === 'ours' && perTab > 0) {
    // The open tabs (and the worker) deliver what the chaos left first: the phase measures the worker on its own awards.
    await drain(onePerStorage(tabs));
    const awards = planClosedTabs(seed, perTab, options.awards, sender);
    closedTabs = await closedTabsPhase({ stack, context, tabs, awards, issued, issue, setOffline, timeoutMs: 60_000 });
    log(`${sender}: every tab closed; the worker delivered ${closedTabs.undeliveredAtOnline} in ${closedTabs.deliveredMs} ms`);
  }
  log(`${sender}: draining at ${at()}`);

  // End: every page closed, then one page per storage name reopened to drain what is left.
  for (const tab of tabs) await tab.page.close().catch(() => {});
  const drainers: Tab[] = [];
  for (const slot of SLOTS) {
    if (drainers.some((t) => t.slot.storage === slot.storage)) continue;
    const tab = { slot, ready: false } as Tab;
    tabs.push(tab);
    drainers.push(tab);
    await openPage(tab);
  }
  if (closedTabs) closedTabs.leftAtReopen = (await stored(drainers.map((t) => t.page))).length;
  const left = await drain(drainers);
  log(`${sender}: drained at ${at()} (${left.length} left)`);
  const deadLetters = [];
  for (const tab of drainers) deadLetters.push(...(await tab.page.evaluate(() => (globalThis as ChaosGlobal).chaos.deadLetters())));
  // Pages gone first: a batch whose page went away is still worked through by the relay; wait for that too.
  await context.close();
  await quiescent(stack);
  stack.events.off('start', countWorker);
  log(`${sender}: quiescent at ${at()}`);

  const state = (await stack.admin('GET', '/state')) as { ledger: LedgerEntry[] };
  const requests = (await stack.admin('GET', '/requests')) as {
    at: string;
    method: string;
    fault?: string;
    path: string;
    status: number;
    replayed?: true;
    idempotencyKey?: string;
  }[];
  // CHAOS_DUMP=<prefix>: everything a failed verdict needs to be traced award by award.
  if (process.env.CHAOS_DUMP)
    (await import('node:fs')).writeFileSync(
      `${process.env.CHAOS_DUMP}${sender}.json`,
      JSON.stringify({ requests, ledger: state.ledger, issued: [...issued.values()], workerLog: stack.workerLog }),
    );
  const faults: Record<string, number> = {};
  for (const r of requests) if (r.fault) faults[r.fault] = (faults[r.fault] ?? 0) + 1;
  const faulted = Object.values(faults).reduce((a, b) => a + b, 0);
  await stack.setFaults({});

  const verdict = judge({
    sender,
    issued: [...issued.values()],
    ledger: state.ledger.filter((e) => e.questId === QUEST),
    deadLetters,
    answers,
    stillQueued: new Set(left),
    // The relay scopes keys per player: the ledger holds the key the service saw.
    upstreamKey,
  });
  const operator = operatorCounts && (await operatorReport(stack, operatorCounts, requests, state.ledger));
  return {
    sender,
    seed,
    verdict,
    chaos,
    ...(operator ? { operator } : {}),
    faults,
    serviceRequests: requests.length,
    faultRate: requests.length ? faulted / requests.length : 0,
    proxyStatuses: Object.fromEntries([...stack.statuses].sort(([a], [b]) => a - b)),
    pageErrors,
    workerRequests,
    degraded,
    closedTabs,
    wallMs: Math.round(performance.now() - started),
  };
}
