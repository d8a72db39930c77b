// Releases share one outbox in the players' browsers (docs/releases.md, "The stored-format contract"): awards queued by
// the previous release (the packed 0.1.0, test/helpers/previous-release.ts) are delivered by this one, and a worker of
// one release with a page of the other drains one outbox with it: 0 lost, 0 applied twice, counted at the emulator.
// Chromium with storage partitioning on (test/helpers/chromium.ts): the pages are top-level, so it changes nothing
// here, but every browser test runs as players' browsers do.
//
// It fails on a broken migration: with the reader (src/client/format.ts readable) taking a record without `v` for a
// newer one (`?.v ?? 2`), the first test failed with "timed out waiting for the new page to deliver the old page's
// awards" and the third with "no such award request reached the proxy" (this release's worker read none of 0.1.0's
// records); the second, where 0.1.0's worker reads this release's records, is the one that catches a writer change.
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { previousPage, previousWorker } from '../helpers/previous-release.js';
import { expectExactlyOnce, nextAward, openSdkPage, type OpenedPage, type Stack, setupBrowserStack, uniqueId, until } from './harness.js';

const inContext = setupBrowserStack({ 'previous-page': previousPage, 'previous-sw': previousWorker });
const PREVIOUS = '/previous-page.html';

async function goOffline(stack: Stack, context: BrowserContext) {
  stack.blockApi(true);
  await context.setOffline(true);
}

async function backOnline(stack: Stack, context: BrowserContext) {
  stack.blockApi(false);
  await context.setOffline(false);
}

/** Offline, `points` awarded on `tab` and committed; then the tab is closed (its keepalive batch dropped). */
async function queueOfflineAndClose(stack: Stack, context: BrowserContext, tab: OpenedPage, label: string, points: number[]) {
  tab.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED .*\/api\//);
  await goOffline(stack, context);
  const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
  expect(await tab.sdk((page, k) => page.persisted(k), keys)).toEqual(keys.map(() => true));
  expect(tab.errors).toEqual([]);
  await tab.page.close();
  stack.dropTab(label);
  return new Map(keys.map((key, i) => [key, points[i]!]));
}

/**
 * The worker of one release and pages of the other drain one outbox. A page of the other release queues awards while
 * the relay is out of reach (its sends fail), and only then registers the worker: the worker never heard of them on
 * the channel, so it knows only what it reads from the store, as the other release wrote it. Offline, the page
 * registers the Background Sync tag and closes; back online, the worker drains them and, once its first batch is in
 * flight (each send answered after 400 ms), a second page of the other release opens and queues more of its own.
 */
async function drainTogether(stack: Stack, context: BrowserContext, script: string, otherPage: string) {
  const sub = uniqueId('xv');
  const storage = uniqueId('xv');
  const tab = await openSdkPage(stack, context, { sub, storage, tab: 'first', backoffBase: 50, backoffMax: 200 }, otherPage);
  tab.expectNetworkErrors(/\/api\//);
  await until(async () => (await tab.sdk((page) => page.snapshot())).points[0]?.confirmedAt, 'the first read of the points');
  stack.blockApi(true);
  const points = Array.from({ length: 12 }, (_, i) => i + 1);
  const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
  expect(await tab.sdk((page, k) => page.persisted(k), keys)).toEqual(keys.map(() => true));
  const issued = new Map(keys.map((key, i) => [key, points[i]!]));
  const token = `/token?${new URLSearchParams({ sub, tab: 'sw', instance: 'worker' })}`;
  await tab.sdk((page, u) => page.registerWorker(u), `${script}?${new URLSearchParams({ relayUrl: '/api', tokenUrl: token, storageName: storage })}`);
  await context.setOffline(true);
  await tab.page.evaluate(async () => {
    const registration = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & { sync: { register(tag: string): Promise<void> } };
    await registration.sync.register('quest-points');
  });
  expect(tab.errors).toEqual([]);
  await tab.page.close();
  stack.dropTab('first');

  await backOnline(stack, context);
  const inFlight = await nextAward(stack, (r) => r.keys.some((k) => issued.has(k)), 15_000);
  expect(inFlight.tab, "the worker drains the other release's records").toBe('sw');
  const other = await openSdkPage(stack, context, { sub, storage, tab: 'other', backoffBase: 50, backoffMax: 200 }, otherPage);
  const more = await other.sdk((page) => [page.award(100), page.award(200), page.award(300)]);
  for (const [i, key] of more.entries()) issued.set(key, (i + 1) * 100);
  await until(
    async () => (await stack.ledgerOf(sub)).length >= issued.size && (await other.sdk((page) => page.pendingKeys())).length === 0,
    'every award delivered',
    30_000,
  );
  await expectExactlyOnce(stack, sub, issued);
  const senders = new Set(stack.awards.filter((r) => r.keys.some((k) => issued.has(k))).map((r) => r.tab));
  console.info(`cross-version drain: ${issued.size} awards, sent by ${[...senders].join(' and ')}; 0 lost, 0 applied twice`);
  expect(await other.sdk((page) => page.storedOutbox())).toEqual([]);
  expect(other.errors).toEqual([]);
}

describe('releases share one outbox (Chromium, partitioning on)', () => {
  it(
    "awards queued by the previous release's page are delivered by this release's page, exactly once",
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('xv-page');
        const storage = uniqueId('xv');
        const old = await openSdkPage(stack, context, { sub, storage, tab: 'old' }, PREVIOUS);
        const issued = await queueOfflineAndClose(stack, context, old, 'old', [1, 2, 3, 5, 8, 13]);
        await backOnline(stack, context);
        const next = await openSdkPage(stack, context, { sub, storage, tab: 'new' });
        await until(async () => (await stack.ledgerOf(sub)).length >= issued.size, "the new page to deliver the old page's awards", 20_000);
        await until(async () => (await next.sdk((page) => page.storedOutbox())).length === 0, 'the outbox empty');
        await expectExactlyOnce(stack, sub, issued);
        expect(next.errors).toEqual([]);
      }),
    45_000,
  );

  it(
    "the previous release's worker and this release's page drain one outbox: 0 lost, 0 applied twice",
    () => inContext((stack, context) => drainTogether(stack, context, '/previous-sw.js', '/sdk.html'), { latencyMs: 400 }),
    60_000,
  );

  it(
    "this release's worker and the previous release's page drain one outbox: 0 lost, 0 applied twice",
    () => inContext((stack, context) => drainTogether(stack, context, '/sw.js', PREVIOUS), { latencyMs: 400 }),
    60_000,
  );
});
