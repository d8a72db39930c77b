// The outbox survives a page reload: in the middle of a flush (the batch in flight at the relay), and before any
// flush (network blocked). The verdict reads the emulator's ledger: every issued key exactly once, with its points.
import { describe, expect, it } from 'vitest';
import {
  expectExactlyOnce,
  nextAward,
  openSdkPage,
  serviceKey,
  uniqueId,
  until,
  setupBrowserStack,
  type OpenedPage,
  type SdkPage,
  type Stack,
} from './harness.js';

const inContext = setupBrowserStack();

describe('SDK in Chromium: durability across reloads', () => {
  it(
    'a reload while a batch is in flight: the new page resends the same keys; each is applied exactly once',
    () =>
      inContext(
        async (stack, context) => {
          const sub = uniqueId('reload-mid');
          // Each award waits 700 ms at the service, one after the other for one player: the batch is outstanding ~3 s.
          const tab = await openSdkPage(stack, context, { sub, storage: 'durable-mid', backoffBase: 200, backoffMax: 1000 });
          // An award resent alone while the first request still holds its key is answered 409 (in flight): retried.
          tab.expectNetworkErrors(/status of 409 .*\/api\/group-quests\/[^/]+\/points\)$/);
          const points = [1, 2, 3.5, 4];
          const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
          const issued = new Map(keys.map((key, i) => [key, points[i]!]));

          const inFlight = await nextAward(stack, (entry) => keys.every((key) => entry.keys.includes(key)));
          const stored = await tab.sdk((page) => page.storedOutbox());
          expect(stored.map((r) => r.key).sort()).toEqual([...keys].sort());
          expect(inFlight.end).toBeUndefined();

          const firstInstance = await tab.sdk((page) => page.instance);
          await tab.page.reload();
          await tab.ready();
          // Still outstanding when the new page came up: the reload really cut a flush.
          expect(inFlight.end).toBeUndefined();
          const secondInstance = await tab.sdk((page) => page.instance);
          expect(secondInstance).not.toBe(firstInstance);

          // The new page found the awards in IndexedDB and resends them under the same keys.
          const resent = await nextAward(stack, (entry) => entry.instance === secondInstance);
          expect(resent.keys.every((key) => issued.has(key))).toBe(true);
          await until(async () => (await tab.sdk((page) => page.pendingKeys())).length === 0, 'the outbox to drain', 30_000);

          await expectExactlyOnce(stack, sub, issued);
          expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
          // The new page acknowledged awards it never queued: they leave its view as sent.
          const events = await tab.sdk((page) => page.events);
          expect(events.filter((e) => e.name === 'error')).toEqual([]);
          expect(events.some((e) => e.name === 'queue:drained')).toBe(true);
          // No award was sent by the reload under a key that was not issued.
          const sentKeys = new Set(stack.awards.filter((a) => a.keys.some((k) => issued.has(k))).flatMap((a) => a.keys));
          expect([...sentKeys].filter((key) => !issued.has(key))).toEqual([]);
          expect(tab.errors).toEqual([]);
        },
        { latencyMs: 700 },
      ),
    45_000,
  );

  it(
    'a reload before any flush, network blocked: the awards wait in IndexedDB and land once it is back',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('reload-blocked');
        const tab = await openSdkPage(stack, context, { sub, storage: 'durable-blocked', backoffBase: 100, backoffMax: 500 });
        tab.expectNetworkErrors(/\/api\//);
        stack.blockApi(true);
        const points = [5, 6, 7];
        const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
        const issued = new Map(keys.map((key, i) => [key, points[i]!]));
        expect(await tab.sdk((page, k) => page.persisted(k), keys)).toEqual([true, true, true]);
        await until(async () => (await tab.sdk((page) => page.storedOutbox())).length === keys.length, 'the awards in IndexedDB');

        await tab.page.reload();
        await tab.ready();
        const stored = await tab.sdk((page) => page.storedOutbox());
        expect(new Map(stored.map((r) => [r.key, r.points]))).toEqual(issued);
        // The new page shows them as pending from the store.
        await until(async () => (await tab.sdk((page) => page.snapshot())).queueSize === keys.length, 'the reloaded queue');
        expect((await tab.sdk((page) => page.snapshot())).points[0]).toMatchObject({ pendingPoints: 18 });
        expect(stack.awards.filter((a) => a.keys.some((k) => issued.has(k)))).toEqual([]);

        // Something was tried (and dropped) while blocked: the page did not just sit idle, and it knows it is cut off
        // (a failed send, no `offline` event).
        expect(stack.dropped()).toBeGreaterThan(0);
        await until(async () => (await tab.sdk((page) => page.snapshot())).online === false, 'the page to see itself offline');
        stack.blockApi(false);
        // No flush() call: the SDK's own retry sends them.
        await until(async () => (await tab.sdk((page) => page.pendingKeys())).length === 0, 'the outbox to drain');
        await expectExactlyOnce(stack, sub, issued);
        expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
        const sent = stack.awards.filter((a) => a.keys.some((k) => issued.has(k)));
        expect(sent.flatMap((a) => a.keys).sort()).toEqual([...keys].sort());
        expect((await tab.sdk((page) => page.snapshot())).online).toBe(true);
        expect((await tab.sdk((page) => page.events)).filter((e) => e.name === 'error')).toEqual([]);
        expect(tab.errors).toEqual([]);
      }),
    30_000,
  );

  it(
    "pagehide: the keepalive batch carries the queued awards; they stay queued and the next page's resend is a replay",
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('pagehide');
        // A minute's backoff: after its first failed flush the page sends nothing more on its own before it goes away.
        const tab = await openSdkPage(stack, context, { sub, storage: 'durable-pagehide', backoffBase: 60_000, backoffMax: 60_000 });
        tab.expectNetworkErrors(/\/api\//);
        // The page's own requests fail (Playwright's routing).
        await tab.page.route('**/api/**', (route) => route.abort('internetdisconnected'));
        const points = [8, 9];
        const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
        const issued = new Map(keys.map((key, i) => [key, points[i]!]));
        await until(async () => (await tab.sdk((page) => page.storedOutbox())).length === keys.length, 'the awards in IndexedDB');
        await until(async () => (await tab.sdk((page) => page.events)).some((e) => e.name === 'award:retrying'), 'the first flush to fail');
        const firstInstance = await tab.sdk((page) => page.instance);
        // The routing ends before the page goes: it caught the keepalive request too when that left while the page
        // was still attached (a race: CI failed on it once). The next page load's requests are dropped by the gateway.
        await tab.page.unroute('**/api/**');
        stack.dropLoadsBut((instance) => instance === firstInstance);

        // The same page, reloaded with a short backoff (a reload would keep the minute).
        const url = new URL(tab.page.url());
        url.searchParams.set('backoffBase', '100');
        url.searchParams.set('backoffMax', '500');
        await tab.page.goto(url.href);
        await tab.ready();
        const beacon = await nextAward(stack, (r) => r.instance === firstInstance);
        expect(beacon).toMatchObject({ path: '/batch/points', keys });
        await until(() => beacon.end !== undefined, 'the beacon to be answered');
        expect(beacon.status).toBe(200);
        // Applied by the beacon, yet still in the outbox: the new page only has its own evidence, the store.
        const sent = keys.map((key) => serviceKey(sub, key));
        expect((await stack.ledgerOf(sub)).map((e) => e.idempotencyKey)).toEqual(sent);
        expect(new Set(await tab.sdk((page) => page.pendingKeys()))).toEqual(new Set(keys));

        stack.undropTabs();
        await until(async () => (await tab.sdk((page) => page.pendingKeys())).length === 0, 'the outbox to drain');
        await expectExactlyOnce(stack, sub, issued);
        expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
        // The service saw each key twice: applied once (the beacon), replayed once (the new page).
        const log = (await stack.serviceRequests()).filter((r) => r.idempotencyKey && sent.includes(r.idempotencyKey));
        for (const key of sent) expect(log.filter((r) => r.idempotencyKey === key).map((r) => r.replayed ?? false)).toEqual([false, true]);
        // The new page reports them sent, though it never queued them itself.
        const sentEvents = (await tab.sdk((page) => page.events)).filter((e) => e.name === 'award:sent');
        expect(new Set(sentEvents.map((e) => e.data.key))).toEqual(new Set(keys));
        expect(tab.errors).toEqual([]);
      }),
    30_000,
  );

  it(
    'an award whose `persisted` resolved survives a navigation at once, network down',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('persisted');
        const tab = await openSdkPage(stack, context, { sub, storage: 'durable-persisted', backoffBase: 100, backoffMax: 500 });
        await awardsAcrossReloads(stack, tab, sub, 5, (round) =>
          tab.page.evaluate(async (points) => {
            const page = (window as unknown as { sdkPage: SdkPage }).sdkPage;
            const key: string = page.award(points);
            // The promise under test: it must exist and resolve true before the page navigates away.
            const persisted = await page.persisted([key]);
            if (persisted[0] !== true) throw new Error(`award ${key}: persisted resolved ${JSON.stringify(persisted)}, not [true]`);
            sessionStorage.setItem(`issued:${points}`, JSON.stringify([key]));
            location.reload();
          }, round + 1),
        );
      }),
    60_000,
  );

  // Fixed (was a known failure): award() writes to IndexedDB asynchronously (next microtask, one transaction), and
  // Chromium drops a write transaction that has not committed when the page is torn down; with the network down the
  // pagehide beacon cannot save the awards either. The SDK now stashes the awards not known committed in localStorage
  // on pagehide and merges them into the outbox at start-up (the pagehide rescue, docs/sdk.md).
  it(
    "awards made in the very task that navigates away (nothing awaited, network down) are in the next page's outbox",
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('same-task');
        const tab = await openSdkPage(stack, context, { sub, storage: 'durable-same-task', backoffBase: 100, backoffMax: 500 });
        // Each round loses its awards in roughly a third of runs (more awards, a longer write): 20 rounds of 20.
        await awardsAcrossReloads(stack, tab, sub, 20, (round) =>
          tab.page.evaluate((points) => {
            const page = (window as unknown as { sdkPage: SdkPage }).sdkPage;
            const keys: string[] = Array.from({ length: 20 }, () => page.award(points));
            sessionStorage.setItem(`issued:${points}`, JSON.stringify(keys));
            location.reload();
          }, round + 1),
        );
      }),
    60_000,
  );
});

/**
 * With the network down (neither a flush nor the pagehide beacon gets through), `rounds` page loads each award and
 * reload the page (`awardThenReload` does both in the page; round r awards r + 1 points). Every award must be in the
 * store afterwards, and land exactly once when the network is back.
 */
async function awardsAcrossReloads(stack: Stack, tab: OpenedPage, sub: string, rounds: number, awardThenReload: (round: number) => Promise<unknown>) {
  tab.expectNetworkErrors(/\/api\//);
  stack.blockApi(true);
  const issued = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    // Listening before the reload is triggered: waitForURL would match the old page's URL at once. The page notes
    // its keys in sessionStorage (it survives the reload): the evaluate itself may lose its answer to the navigation.
    const loaded = tab.page.waitForEvent('load');
    await awardThenReload(round).catch((error) => {
      if (!/Execution context was destroyed|navigat/i.test(String(error))) throw error;
    });
    await loaded;
    await tab.ready();
    const keys: string[] = await tab.page.evaluate((points) => JSON.parse(sessionStorage.getItem(`issued:${points}`) ?? '[]'), round + 1);
    expect(keys.length, `round ${round + 1}: the keys the page issued`).toBeGreaterThan(0);
    for (const key of keys) issued.set(key, round + 1);
  }
  // Every issued key in the store (the rescue merges at start-up, so give it a moment, bounded), and nothing else.
  const storedKeys = async () => new Set((await tab.sdk((page) => page.storedOutbox())).map((r) => r.key));
  await expect
    .poll(
      async () => {
        const stored = await storedKeys();
        return [...issued.keys()].filter((key) => !stored.has(key));
      },
      { timeout: 5_000, message: 'awards lost across the navigation' },
    )
    .toEqual([]);
  expect(
    [...(await storedKeys())].filter((key) => !issued.has(key)),
    'stored awards no page issued',
  ).toEqual([]);
  stack.blockApi(false);
  await until(async () => (await tab.sdk((page) => page.pendingKeys())).length === 0, 'the outbox to drain');
  await expectExactlyOnce(stack, sub, issued);
  expect(tab.errors).toEqual([]);
}
