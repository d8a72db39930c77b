// quest-points/react in real Chromium: React 19 (development build) in StrictMode, the provider making the client,
// relay + emulator behind the same-origin proxy of the browser harness.
import { fileURLToPath } from 'node:url';
import type { BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { uniqueId, until, setupBrowserStack, type Stack } from '../browser/harness.js';
import type { ReactPage } from './pages/react-page.js';

const inContext = setupBrowserStack({ react: fileURLToPath(new URL('pages/react-page.ts', import.meta.url)) });

interface Opened {
  page: Page;
  /** Console errors and warnings (React's warnings are either), uncaught exceptions; expected network failures aside. */
  problems: string[];
  expectNetworkErrors(pattern: RegExp): void;
  run<R, A = undefined>(fn: (page: ReactPage, arg: A) => R, arg?: A): Promise<Awaited<R>>;
  /** The DOM's numbers and states, read in one go. */
  dom(): Promise<Dom>;
  /** Waits until fn(dom) holds. */
  waitFor(fn: (dom: Dom) => boolean, what: string): Promise<Dom>;
}

interface Dom {
  total: number;
  stale: string;
  read: string;
  states: string[];
  points: number[];
  other: number;
  online: string;
  queue: number;
}

async function openReactPage(stack: Stack, context: BrowserContext, query: Record<string, string | number>): Promise<Opened> {
  const page = await context.newPage();
  const problems: string[] = [];
  const expected: RegExp[] = [];
  const describe = (message: ConsoleMessage) => `${message.type()}: ${message.text()} (${message.location().url})`;
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    if (message.text().startsWith('Failed to load resource') && expected.some((pattern) => pattern.test(describe(message)))) return;
    problems.push(describe(message));
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.goto(`${stack.origin}/react.html?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`);
  await page.waitForFunction(() => ((window as unknown as { reactPage?: ReactPage }).reactPage?.clients() ?? 0) > 0, undefined, { timeout: 10_000 });
  const dom = () =>
    page.evaluate((): Dom => {
      const attr = (selector: string, name: string) => document.querySelector(selector)?.getAttribute(name) ?? '';
      const items = [...document.querySelectorAll('#history li')];
      return {
        total: Number(attr('#total', 'data-value')),
        stale: attr('#total', 'data-stale'),
        read: attr('#total', 'data-read'),
        states: items.map((li) => li.getAttribute('data-state')!),
        points: items.map((li) => Number(li.getAttribute('data-points'))),
        other: Number(attr('#other', 'data-value')),
        online: attr('#status', 'data-online'),
        queue: Number(attr('#status', 'data-queue')),
      };
    });
  return {
    page,
    problems,
    expectNetworkErrors: (pattern) => void expected.push(pattern),
    run: (fn, arg) =>
      page.evaluate(
        ([source, a]) => new Function('page', 'arg', `return (${source})(page, arg)`)((window as unknown as { reactPage: ReactPage }).reactPage, a),
        [fn.toString(), arg] as const,
      ),
    dom,
    async waitFor(fn, what) {
      let last: Dom | undefined;
      await until(
        async () => {
          last = await dom();
          return fn(last);
        },
        `${what} (last: ${JSON.stringify(last)})`,
      );
      return last!;
    },
  };
}

/** Resolves after `frames` animation frames in the page. */
const frames = (page: Page, count: number) =>
  page.evaluate(
    (n) =>
      new Promise<void>((resolve) => {
        const step = () => (--n <= 0 ? resolve() : requestAnimationFrame(step));
        requestAnimationFrame(step);
      }),
    count,
  );

const settled = (d: Dom) => d.read === 'true' && d.queue === 0 && d.states.every((s) => s === 'confirmed');

describe('quest-points/react in Chromium, React 19 StrictMode', () => {
  it(
    'the total and history follow awards, offline and back; one client; 0 React warnings',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('react');
        const tab = await openReactPage(stack, context, { sub });
        await tab.waitFor((d) => d.read === 'true' && d.online === 'true', 'the first read');
        expect(await tab.run((p) => p.clients())).toBe(1);

        // Shown at once as pending (the flush waits 50 ms), then confirmed by the read after the drain.
        const first = await tab.run(async (p) => {
          p.award(1);
          p.award(2);
          p.award(3);
          await new Promise((resolve) => requestAnimationFrame(resolve));
          return {
            total: Number(document.querySelector('#total')!.getAttribute('data-value')),
            states: [...document.querySelectorAll('#history li')].map((li) => li.getAttribute('data-state')),
          };
        });
        expect(first).toEqual({ total: 6, states: ['pending', 'pending', 'pending'] });
        let dom = await tab.waitFor((d) => settled(d) && d.states.length === 3, 'the three awards confirmed');
        expect(dom).toMatchObject({ total: 6, points: [3, 2, 1] });

        tab.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED/);
        await context.setOffline(true);
        await tab.waitFor((d) => d.online === 'false', 'the status to go offline');
        await tab.run((p) => [p.award(4), p.award(5)]);
        dom = await tab.waitFor((d) => d.queue === 2, 'two queued awards');
        expect(dom).toMatchObject({ total: 15, states: ['pending', 'pending', 'confirmed', 'confirmed', 'confirmed'], points: [5, 4, 3, 2, 1] });
        expect(
          (await stack.ledgerOf(sub))
            .filter((e) => e.questId === 'browser-quest')
            .map((e) => e.eventPoints)
            .sort(),
        ).toEqual([1, 2, 3]);

        await context.setOffline(false);
        dom = await tab.waitFor((d) => settled(d) && d.states.length === 5 && d.online === 'true', 'the offline awards confirmed');
        expect(dom).toMatchObject({ total: 15, points: [5, 4, 3, 2, 1], stale: 'false' });
        expect(
          (await stack.ledgerOf(sub))
            .filter((e) => e.questId === 'browser-quest')
            .map((e) => e.eventPoints)
            .sort(),
        ).toEqual([1, 2, 3, 4, 5]);

        // Past eight entries the page shows the newest eight.
        await tab.run((p) => [6, 7, 8, 9].map((n) => p.award(n)));
        dom = await tab.waitFor((d) => settled(d) && d.total === 45, 'nine awards confirmed');
        expect(dom.points).toEqual([9, 8, 7, 6, 5, 4, 3, 2]);

        // Unmounted: the client the provider made is closed; it was one client all along (StrictMode did not make two).
        await tab.run((p) => p.unmount());
        await until(async () => (await tab.run((p) => p.takesAwards())) === false, 'the client to be closed');
        expect(await tab.run((p) => p.clients())).toBe(1);
        expect(tab.problems).toEqual([]);
      }),
    60_000,
  );

  it(
    '0 renders while idle; an award in a quest nobody shows renders only the status',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('idle');
        // The poll (60 s) does not fall in the test: the window is idle.
        const tab = await openReactPage(stack, context, { sub });
        await tab.run((p) => p.award(2));
        await tab.waitFor((d) => settled(d) && d.total === 2 && d.other === 0, 'the award confirmed');
        // Settled: the counts stay the same across 60 frames (nothing pending can render later).
        const settledAt = await tab.run((p) => ({ ...p.renders }));
        await frames(tab.page, 60);
        const idle = await tab.run((p) => ({ ...p.renders }));
        expect(idle).toEqual(settledAt);

        // An award in another quest: the snapshot changes (queue 1, then 0, a read), the two views do not.
        const bystander = uniqueId('bystander-quest');
        await tab.run((p, quest) => p.award(7, quest), bystander);
        await until(async () => (await stack.ledgerOf(sub)).some((e) => e.questId === bystander), 'the bystander award applied');
        await tab.waitFor((d) => d.queue === 0, 'the queue empty');
        await frames(tab.page, 30);
        const after = await tab.run((p) => ({ ...p.renders }));
        expect({ hud: after.hud - idle.hud, other: after.other - idle.other }).toEqual({ hud: 0, other: 0 });
        // queueSize 1 and back to 0: two renders, each twice under StrictMode.
        expect(after.status - idle.status).toBe(4);
        console.log(JSON.stringify({ settled: settledAt, idle, afterBystander: after }));
        expect(tab.problems).toEqual([]);
      }),
    60_000,
  );

  it(
    'offline, every poll fails and renders nothing; each accepted poll online renders the views once',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('polls');
        const tab = await openReactPage(stack, context, { sub, poll: 400 });
        await tab.waitFor((d) => d.read === 'true' && d.online === 'true', 'the first read');

        // Offline: each poll's read fails again; the SDK rebuilds the views with the same content.
        tab.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED/);
        await context.setOffline(true);
        await tab.waitFor((d) => d.online === 'false' && d.stale === 'true', 'offline and stale');
        await frames(tab.page, 10);
        const before = await tab.run((p) => ({ ...p.renders, requests: p.requests() }));
        await until(async () => (await tab.run((p) => p.requests())) >= before.requests + 6, 'three polls (two reads each)');
        await frames(tab.page, 30);
        const offline = await tab.run((p) => ({ ...p.renders, requests: p.requests() }));
        expect({ hud: offline.hud, other: offline.other, status: offline.status }).toEqual({
          hud: before.hud,
          other: before.other,
          status: before.status,
        });

        // Online: an accepted read moves confirmedAt, which the view carries: one render (two under StrictMode) per poll.
        await context.setOffline(false);
        await tab.waitFor((d) => d.online === 'true' && d.stale === 'false', 'back online');
        const online = await tab.run((p) => ({ ...p.renders, requests: p.requests() }));
        await until(async () => (await tab.run((p) => p.requests())) >= online.requests + 6, 'three polls online');
        const polled = await tab.run((p) => ({ ...p.renders, requests: p.requests() }));
        console.log(JSON.stringify({ offline: { before, after: offline }, online: { before: online, after: polled } }));
        expect(polled.status).toBe(online.status);
        expect(polled.hud - online.hud).toBeGreaterThan(0);
        expect(tab.problems).toEqual([]);
      }),
    60_000,
  );
});
