// The browser goes offline (context.setOffline): awards queue and show as pending; back online, the `online` event
// sends them, each exactly once.
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, openSdkPage, uniqueId, until, setupBrowserStack } from './harness.js';

const inContext = setupBrowserStack();

describe('SDK in Chromium: offline -> online', () => {
  it(
    'awards queue while offline; the online event flushes them; each lands once; queue:drained',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('offline');
        // A backoff of up to 11 days: the retry timer cannot be what sends the awards once back online.
        const tab = await openSdkPage(stack, context, { sub, storage: 'offline', backoffBase: 1e9, backoffMax: 1e9 });
        await until(async () => (await tab.sdk((page) => page.snapshot())).points[0]?.confirmedAt, 'the first read of the points');

        tab.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED .*\/api\//);
        await context.setOffline(true);
        const firstKeys = await tab.sdk((page) => [page.award(3), page.award(4)]);
        // The flush the awards triggered failed for lack of network: retried later, with the same keys.
        await until(async () => {
          const retrying = (await tab.sdk((page) => page.events)).filter((e) => e.name === 'award:retrying' && e.data.reason === 'network');
          return firstKeys.every((key) => retrying.some((e) => e.data.key === key));
        }, 'the failed send');
        const laterKeys = await tab.sdk((page) => [page.award(5), page.award(6), page.award(7)]);
        const issued = new Map([...firstKeys.map((key, i) => [key, i + 3] as const), ...laterKeys.map((key, i) => [key, i + 5] as const)]);

        const offline = await tab.sdk((page) => page.snapshot());
        expect(offline).toMatchObject({ online: false, queueSize: 5 });
        expect(offline.points[0]).toMatchObject({ pendingPoints: 25, totalPoints: 25 });
        expect([...offline.points[0]!.pendingKeys].sort()).toEqual([...issued.keys()].sort());
        const before = await tab.sdk((page) => page.events);
        expect(before.filter((e) => e.name === 'connection:changed').map((e) => e.data.online)).toEqual([false]);
        expect(stack.awards.filter((r) => r.keys.some((key) => issued.has(key)))).toEqual([]);

        await context.setOffline(false);
        await until(async () => (await tab.sdk((page) => page.pendingKeys())).length === 0, 'the outbox to drain');
        await until(
          async () => (await tab.sdk((page) => page.events)).some((e, i) => i >= before.length && e.name === 'queue:drained'),
          'queue:drained',
        );

        await expectExactlyOnce(stack, sub, issued);
        expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
        const after = (await tab.sdk((page) => page.events)).slice(before.length);
        expect(after.filter((e) => e.name === 'connection:changed').map((e) => e.data.online)).toEqual([true]);
        expect(new Set(after.filter((e) => e.name === 'award:sent').map((e) => e.data.key))).toEqual(new Set(issued.keys()));
        // Sent before the backoff timer was due: the online event did it.
        const lastRetry = before.filter((e) => e.name === 'award:retrying').at(-1)!;
        const drained = after.find((e) => e.name === 'queue:drained')!;
        expect(drained.at).toBeLessThan(lastRetry.at + (lastRetry.data.delayMs as number));
        // One batch carried the five awards, oldest first.
        const sent = stack.awards.filter((r) => r.keys.some((key) => issued.has(key)));
        expect(sent.map((r) => r.keys)).toEqual([[...issued.keys()]]);
        expect(await tab.sdk((page) => page.outcomes)).toEqual(Object.fromEntries([...issued.keys()].map((key) => [key, 'sent'])));
        expect((await tab.sdk((page) => page.snapshot())).points[0]).toMatchObject({ pendingPoints: 0, totalPoints: 25 });
        expect(after.filter((e) => e.name === 'error')).toEqual([]);
        expect(tab.errors).toEqual([]);
      }),
    30_000,
  );
});
