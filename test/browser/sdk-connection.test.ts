// Storage that comes and goes: the browser closes the SDK's IndexedDB connections in the middle of a burst (as WebKit
// does: "Connection to Indexed Database server lost"; Chromium when it closes a database, with the `close` event).
// The store reopens and does the write again: every award persisted, none degraded to memory, each applied once.
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, openSdkPage, setupBrowserStack, uniqueId, until } from './harness.js';

const inContext = setupBrowserStack();

/** What the init script keeps: every connection the page opened, and a way to close them all as the browser would. */
type Connections = { qpConnections: IDBDatabase[]; qpOpens: number; closeConnections(told: boolean): number };

describe('SDK in Chromium: IndexedDB connections closed under it', () => {
  it(
    'connections closed twice mid-burst (silently, then with the close event): reopened, nothing lost, nothing duplicated, no degrade',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('lost');
        await context.addInitScript(() => {
          const w = window as unknown as Connections;
          w.qpConnections = [];
          w.qpOpens = 0;
          const realOpen = IDBFactory.prototype.open;
          IDBFactory.prototype.open = function (this: IDBFactory, ...args: Parameters<IDBFactory['open']>) {
            const request = realOpen.apply(this, args);
            w.qpOpens++;
            request.addEventListener('success', () => w.qpConnections.push(request.result));
            return request;
          };
          // A connection dropped under the SDK: closed (InvalidStateError on its next transaction, as WebKit's lost
          // connection surfaces on the next use), and with `told` also announced by the `close` event, as Chromium does.
          w.closeConnections = (told) => {
            const open = w.qpConnections.splice(0);
            for (const db of open) {
              db.close();
              if (told) db.dispatchEvent(new Event('close'));
            }
            return open.length;
          };
        });
        const tab = await openSdkPage(stack, context, { sub, storage: uniqueId('lost') });
        await until(async () => (await tab.sdk((page) => page.snapshot())).points[0]?.confirmedAt, 'the first read');

        // 300 awards, 10 a task; the connections closed after the 100th (silently) and the 200th (with the event).
        const result = await tab.sdk(async (page) => {
          const w = window as unknown as Connections;
          const keys: string[] = [];
          let closed = 0;
          for (let i = 1; i <= 300; i++) {
            keys.push(page.award(1 + (i % 5)));
            if (i % 100 === 0 && i < 300) closed += w.closeConnections(i === 200);
            if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
          }
          return { keys, closed, persisted: await page.persisted(keys) };
        });
        const issued = new Map(result.keys.map((key, i) => [key, 1 + ((i + 1) % 5)]));
        expect(result.closed).toBeGreaterThanOrEqual(2);
        const early = await tab.sdk((page) => page.events.filter((e) => e.name === 'storage:degraded'));
        expect(early).toEqual([]);
        expect(result.persisted).toEqual(result.keys.map(() => true));

        await until(async () => Object.keys(await tab.sdk((page) => page.outcomes)).length === result.keys.length, 'every award settled', 30_000);
        expect(new Set(Object.values(await tab.sdk((page) => page.outcomes)))).toEqual(new Set(['sent']));
        const ledger = await expectExactlyOnce(stack, sub, issued);
        const events = await tab.sdk((page) => page.events);
        expect(events.filter((e) => e.name === 'storage:degraded')).toEqual([]);
        expect(events.filter((e) => e.name === 'error')).toEqual([]);
        expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
        const opens = await tab.page.evaluate(() => (window as unknown as Connections).qpOpens);
        expect(tab.errors).toEqual([]);
        console.info(
          `connection loss: ${result.keys.length} awards, ${result.closed} connections closed mid-burst, ${opens} opens in all, persisted ${result.persisted!.filter(Boolean).length}, delivered ${ledger.length}, lost ${issued.size - ledger.length}, duplicates 0`,
        );
      }),
    60_000,
  );
});
