// IndexedDB refused before the SDK loads (as in a context where storage is blocked): the SDK says so with
// storage:degraded, keeps working in memory, and goes back to IndexedDB once it opens again.
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, openSdkPage, uniqueId, until, setupBrowserStack } from './harness.js';

const inContext = setupBrowserStack();

/** The page's window once the init script kept a way to put IndexedDB back. */
type Restorable = { restoreIndexedDB: () => void };

describe('SDK in Chromium: storage degraded', () => {
  it(
    'indexedDB.open throws: storage:degraded, awards still land exactly once from memory; the poll recovers the store',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('degraded');
        // What Chromium throws where IndexedDB is denied; the real open is kept to put back later.
        await context.addInitScript(() => {
          const realOpen = IDBFactory.prototype.open;
          (window as unknown as Restorable).restoreIndexedDB = () => {
            IDBFactory.prototype.open = realOpen;
          };
          IDBFactory.prototype.open = () => {
            throw new DOMException('access to the Indexed Database API is denied in this context', 'SecurityError');
          };
        });
        const tab = await openSdkPage(stack, context, { sub, storage: 'degraded', poll: 300 });
        await until(async () => (await tab.sdk((page) => page.events)).some((e) => e.name === 'storage:degraded'), 'storage:degraded');
        const degraded = (await tab.sdk((page) => page.events)).filter((e) => e.name === 'storage:degraded');
        expect(degraded).toHaveLength(1);
        expect(degraded[0]!.data).toMatchObject({ reason: 'denied', error: { name: 'SecurityError' } });
        expect((await tab.sdk((page) => page.snapshot())).storage).toBe('degraded');

        const keys = await tab.sdk((page) => [page.award(2), page.award(3), page.award(4)]);
        const issued = new Map(keys.map((key, i) => [key, i + 2]));
        await until(async () => Object.keys(await tab.sdk((page) => page.outcomes)).length === keys.length, 'the awards to settle');
        expect(await tab.sdk((page) => page.outcomes)).toEqual(Object.fromEntries(keys.map((key) => [key, 'sent'])));
        await expectExactlyOnce(stack, sub, issued);
        expect(await tab.sdk((page) => page.snapshot())).toMatchObject({ storage: 'degraded', queueSize: 0 });
        expect((await tab.sdk((page) => page.snapshot())).points[0]).toMatchObject({ totalPoints: 9, pendingPoints: 0 });

        // IndexedDB works again: a poll notices and the next award goes through the store.
        await tab.page.evaluate(() => (window as unknown as Restorable).restoreIndexedDB());
        await until(async () => (await tab.sdk((page) => page.snapshot())).storage === 'indexeddb', 'the store to recover');
        const again = await tab.sdk((page) => page.award(5));
        issued.set(again, 5);
        expect(await tab.sdk((page, k) => page.persisted(k), [again])).toEqual([true]);
        await until(async () => (await tab.sdk((page) => page.outcomes))[again] === 'sent', 'the award after recovery');
        await expectExactlyOnce(stack, sub, issued);
        expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
        expect((await tab.sdk((page) => page.events)).filter((e) => e.name === 'error')).toEqual([]);
        expect(tab.errors).toEqual([]);
      }),
    30_000,
  );
});
