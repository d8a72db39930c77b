// Delivery with every tab closed: quest-points/sw.js in Chromium. Awards are queued while the context is offline,
// the page registers the Background Sync tag and is closed; back online, Chromium fires `sync` (the real event: with
// DevTools offline emulation Chromium holds the tag until context.setOffline(false)) and the worker drains the outbox.
import { performance } from 'node:perf_hooks';
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { VANISHED_MS } from '../../src/client/mirror.js';
import { expectExactlyOnce, nextAward, openSdkPage, uniqueId, until, type OpenedPage, type Stack, setupBrowserStack } from './harness.js';

const inContext = setupBrowserStack();

interface Scenario {
  sub: string;
  storage: string;
  tab: OpenedPage;
}

/**
 * A page with backgroundSync on and the worker registered for its storage; `refuse` makes the worker's first token
 * bad, `status` makes its token URL answer that status.
 */
async function withWorker(stack: Stack, context: BrowserContext, name: string, refuse?: string, status?: number): Promise<Scenario> {
  const sub = uniqueId(name);
  const storage = uniqueId('sw');
  const tab = await openSdkPage(stack, context, { sub, storage, tab: 'page', backgroundSync: true, backoffBase: 50, backoffMax: 200 });
  const token = `/token?${new URLSearchParams({ sub, tab: 'sw', instance: 'worker', ...(refuse ? { refuse } : {}), ...(status ? { status: String(status) } : {}) })}`;
  const url = `/sw.js?${new URLSearchParams({ relayUrl: '/api', tokenUrl: token, storageName: storage })}`;
  await tab.sdk((page, u) => page.registerWorker(u), url);
  await until(async () => (await tab.sdk((page) => page.snapshot())).points[0]?.confirmedAt, 'the first read of the points');
  return { sub, storage, tab };
}

/**
 * Offline, and the gateway dropping /api/* too. The keepalive batch a closing page sends on pagehide is not the
 * page's any more: DevTools offline emulation may let it out, then or once the context is back online, where a
 * player really offline sees it fail. So the gateway drops it (blockApi here, dropTab once the page is closed).
 */
async function goOffline(stack: Stack, context: BrowserContext) {
  stack.blockApi(true);
  await context.setOffline(true);
}

async function backOnline(stack: Stack, context: BrowserContext) {
  stack.blockApi(false);
  await context.setOffline(false);
}

/** Offline: the awards are queued and committed, a send fails, the page registers the tag; then it is closed. */
async function queueOfflineAndClose(stack: Stack, context: BrowserContext, tab: OpenedPage, points: number[]): Promise<Map<string, number>> {
  tab.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED .*\/api\//);
  await goOffline(stack, context);
  const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
  expect(await tab.sdk((page, k) => page.persisted(k), keys)).toEqual(keys.map(() => true));
  // One player in every tab: awards a closed tab had claimed come first, handed over once they have vanished
  // (VANISHED_MS), so this tab's first send may wait that long before it can fail (a CI run under load missed 15 s).
  await until(
    async () => (await tab.sdk((page) => page.events)).some((e) => e.name === 'award:retrying' && e.data.reason === 'network'),
    'a failed send',
    VANISHED_MS + 15_000,
  );
  await until(async () => (await tab.sdk((page) => page.syncTags())).includes('quest-points'), 'the sync tag');
  expect((await tab.sdk((page) => page.storedOutbox())).map((r) => r.key)).toEqual(expect.arrayContaining(keys));
  expect(tab.errors).toEqual([]);
  await tab.page.close();
  // withWorker's page: its keepalive batch must not stand in for the worker.
  stack.dropTab('page');
  expect(context.pages()).toEqual([]);
  return new Map(keys.map((key, i) => [key, points[i]!]));
}

/** Every request that carried one of these keys. */
const carrying = (stack: Stack, keys: Iterable<string>) => {
  const wanted = new Set(keys);
  return stack.awards.filter((r) => r.keys.some((key) => wanted.has(key)));
};

describe('quest-points/sw: delivery with every tab closed (Chromium Background Sync)', () => {
  it(
    'awards queued offline are delivered by the worker with no page open: exactly once, same keys',
    () =>
      inContext(async (stack, context) => {
        const { sub, storage, tab } = await withWorker(stack, context, 'sw-closed');
        const issued = await queueOfflineAndClose(
          stack,
          context,
          tab,
          Array.from({ length: 25 }, (_, i) => i + 1),
        );

        const online = performance.now();
        await backOnline(stack, context);
        await until(async () => (await stack.ledgerOf(sub)).length >= issued.size, 'the worker to deliver', 20_000);
        const deliveredMs = performance.now() - online;
        expect(context.pages()).toEqual([]);

        await expectExactlyOnce(stack, sub, issued);
        const requests = carrying(stack, issued.keys());
        // The worker sent them (its token), each key in one request: no page, no duplicate.
        expect(requests.map((r) => r.tab)).toEqual(requests.map(() => 'sw'));
        const sends = requests.flatMap((r) => r.keys);
        expect(sends.length).toBe(issued.size);
        console.info(
          `closed-tab delivery: ${issued.size} awards, ${deliveredMs.toFixed(0)} ms from online to delivered, ${requests.length} request(s), ${sends.length - issued.size} duplicate sends`,
        );

        // The next page finds the outbox empty.
        const next = await openSdkPage(stack, context, { sub, storage });
        expect(await next.sdk((page) => page.storedOutbox())).toEqual([]);
        expect(await next.sdk((page) => page.pendingKeys())).toEqual([]);
        // The sync event succeeded: the tag is not waiting for another attempt.
        expect(await next.sdk((page) => page.syncTags())).toEqual([]);
        expect(next.errors).toEqual([]);
      }),
    45_000,
  );

  it(
    "a page opened during the worker's drain sends nothing itself; it learns of the delivery on the channel",
    () =>
      inContext(
        async (stack, context) => {
          const { sub, storage, tab } = await withWorker(stack, context, 'sw-overlap');
          const issued = await queueOfflineAndClose(stack, context, tab, [2, 4, 6, 8, 10, 12]);

          await backOnline(stack, context);
          // The service answers each award after 0.8 s: the worker holds the lock with its batch in flight meanwhile.
          const inFlight = await nextAward(stack, (r) => r.keys.some((key) => issued.has(key)));
          expect(inFlight.tab).toBe('sw');
          const late = await openSdkPage(stack, context, { sub, storage, tab: 'late' });
          // Opened, and its start-up flush tried, before the worker's answer came back.
          const pendingAtStart = await late.sdk((page) => page.pendingKeys());
          expect(inFlight.end, 'the page must open during the drain').toBeUndefined();
          expect(pendingAtStart.sort()).toEqual([...issued.keys()].sort());

          // Watched through events and the snapshot: pending() re-reads the store, which would tell the page first.
          const sentKeys = async () =>
            (await late.sdk((page) => page.events)).filter((e) => e.name === 'award:sent').map((e) => e.data.key as string);
          await until(async () => (await sentKeys()).length >= issued.size, 'the page to learn of the delivery', 20_000);
          expect((await sentKeys()).sort()).toEqual([...issued.keys()].sort());
          expect(await late.sdk((page) => page.snapshot())).toMatchObject({ queueSize: 0, points: [{ pendingPoints: 0 }] });

          await expectExactlyOnce(stack, sub, issued);
          const requests = carrying(stack, issued.keys());
          // Only the worker sent them (the page's start-up flush found the lock held).
          expect(requests.map((r) => r.tab)).toEqual(requests.map(() => 'sw'));
          expect(late.errors).toEqual([]);
        },
        { latencyMs: 800 },
      ),
    45_000,
  );

  it(
    "the worker's token refused once: a fresh one from tokenUrl, the awards delivered once",
    () =>
      inContext(async (stack, context) => {
        const refuse = uniqueId('refuse');
        const { sub, tab } = await withWorker(stack, context, 'sw-token', refuse);
        const issued = await queueOfflineAndClose(stack, context, tab, [5, 7]);

        await backOnline(stack, context);
        await until(async () => (await stack.ledgerOf(sub)).length >= issued.size, 'the worker to deliver', 20_000);
        await expectExactlyOnce(stack, sub, issued);
        expect(stack.tokenRequests.filter((t) => t.sub === sub && t.tab === 'sw').map((t) => t.refused)).toEqual([true, false]);
        // The refused token's batch (401), then the same batch with the fresh token.
        const requests = carrying(stack, issued.keys());
        expect(requests.map((r) => [r.tab, r.status])).toEqual([
          ['?', 401],
          ['sw', 200],
        ]);
        expect(requests[0]!.keys).toEqual(requests[1]!.keys);
      }),
    45_000,
  );

  it(
    'the token URL answering 503 for 4 s as the network comes back: every award delivered within the one event, once',
    () =>
      inContext(async (stack, context) => {
        const { sub, storage, tab } = await withWorker(stack, context, 'sw-login-down');
        const issued = await queueOfflineAndClose(
          stack,
          context,
          tab,
          Array.from({ length: 20 }, (_, i) => i + 1),
        );

        // The worker has no token yet: its first fetch of the token URL is in the outage.
        stack.tokenOutage({ forMs: 4000, status: 503, retryAfterSeconds: 1 });
        const online = performance.now();
        await backOnline(stack, context);
        await until(async () => (await stack.ledgerOf(sub)).length >= issued.size, 'the worker to deliver', 40_000);
        const deliveredMs = performance.now() - online;
        expect(context.pages()).toEqual([]);
        await expectExactlyOnce(stack, sub, issued);

        const fetches = stack.tokenRequests.filter((t) => t.sub === sub && t.tab === 'sw');
        const refused = fetches.filter((t) => t.status === 503);
        // Retried, not given up: 503s, then one token, and no fetch sooner than Retry-After (1 s) after a 503.
        expect(refused.length).toBeGreaterThan(1);
        expect(fetches.map((t) => t.status ?? 200)).toEqual([...refused.map(() => 503), 200]);
        const gaps = fetches.slice(1).map((t, i) => t.at - fetches[i]!.at);
        for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
        expect(carrying(stack, issued.keys()).map((r) => r.tab)).toEqual(['sw']);
        console.info(
          `closed-tab delivery through a 4 s token-URL outage (503, Retry-After 1): ${issued.size} awards, ${deliveredMs.toFixed(0)} ms from online to delivered, ` +
            `${refused.length} token fetches refused, first token ${(fetches.at(-1)!.at - online).toFixed(0)} ms after online`,
        );

        // Within the one event: it succeeded, so no tag waits for the browser's next attempt (minutes later).
        const next = await openSdkPage(stack, context, { sub, storage, tab: 'next' });
        expect(await next.sdk((page) => page.syncTags())).toEqual([]);
        expect(await next.sdk((page) => page.storedOutbox())).toEqual([]);
        expect(next.errors).toEqual([]);
      }),
    75_000,
  );

  it(
    'the token URL answering 401 (no session): the worker gives the event up and says why, to an open page (sync:failed) and in its console',
    () =>
      inContext(async (stack, context) => {
        const workerLog: string[] = [];
        context.on('serviceworker', (worker) => worker.on('console', (message) => workerLog.push(`${message.type()}: ${message.text()}`)));
        const { sub, tab } = await withWorker(stack, context, 'sw-no-session', undefined, 401);
        tab.expectNetworkErrors(/\/api\//);
        await goOffline(stack, context);
        const keys = await tab.sdk((page) => [page.award(3), page.award(4)]);
        expect(await tab.sdk((page, k) => page.persisted(k), keys)).toEqual([true, true]);
        await until(async () => (await tab.sdk((page) => page.syncTags())).includes('quest-points'), 'the sync tag');
        // The page stays open but cannot send (its requests are dropped): only the worker's event can settle anything.
        stack.dropTab('page');
        await backOnline(stack, context);

        const failed = await until(
          async () => (await tab.sdk((page) => page.events)).find((e) => e.name === 'sync:failed'),
          'sync:failed in the page',
          20_000,
        );
        expect(failed.data).toEqual({ reason: 'auth', message: 'getToken() failed: tokenUrl answered HTTP 401', queueSize: 2 });
        await until(
          () =>
            workerLog.some((line) =>
              line.startsWith(
                'warning: [quest-points/sw] sync event given up (auth): getToken() failed: tokenUrl answered HTTP 401. 2 award(s) stay queued',
              ),
            ),
          "the worker's console line",
        );
        // Given up at once, not retried within the event: nothing sent by the worker, the awards still queued. (The page,
        // whose sends keep failing, registers the tag again, so Chromium may fire another event: each fetches once.)
        const fetches = stack.tokenRequests.filter((t) => t.sub === sub && t.tab === 'sw').map((t) => t.status);
        expect(fetches.length).toBeGreaterThan(0);
        expect(fetches.every((status) => status === 401)).toBe(true);
        expect(carrying(stack, keys).filter((r) => r.tab === 'sw')).toEqual([]);
        expect((await tab.sdk((page) => page.storedOutbox())).map((r) => r.key).sort()).toEqual([...keys].sort());
        expect(tab.errors).toEqual([]);
      }),
    45_000,
  );

  it(
    'an award the relay refuses becomes a dead letter the next page sees; the others are delivered',
    () =>
      inContext(async (stack, context) => {
        const { sub, storage, tab } = await withWorker(stack, context, 'sw-dead');
        // The harness's policy caps an award at 1000 points: 5000 passes the SDK and is refused (422) by the relay.
        const issued = await queueOfflineAndClose(stack, context, tab, [3, 5000, 9]);
        const [first, refusedKey, last] = [...issued.keys()];

        await backOnline(stack, context);
        await until(async () => (await stack.ledgerOf(sub)).length >= 2, 'the worker to deliver', 20_000);
        await expectExactlyOnce(
          stack,
          sub,
          new Map([
            [first!, 3],
            [last!, 9],
          ]),
        );

        const next = await openSdkPage(stack, context, { sub, storage, tab: 'next' });
        const letters = await until(async () => {
          const found = await next.sdk(async (page) =>
            (await page.qp.deadLetters()).map((d) => ({ key: d.idempotencyKey, points: d.eventPoints, status: d.status, message: d.message })),
          );
          return found.length ? found : undefined;
        }, 'the dead letter');
        expect(letters).toEqual([{ key: refusedKey, points: 5000, status: 422, message: expect.stringContaining('maxPointsPerAward') }]);
        await until(async () => (await next.sdk((page) => page.snapshot())).deadLetterCount === 1, 'the dead-letter count');
        expect(await next.sdk((page) => page.storedOutbox())).toEqual([]);
        expect(carrying(stack, issued.keys()).map((r) => r.tab)).toEqual(['sw']);
        expect(next.errors).toEqual([]);
      }),
    45_000,
  );

  it(
    'all tabs closed under faults: three tabs queue offline and close; the worker delivers through errors and lost acknowledgements, each once',
    () =>
      inContext(async (stack, context) => {
        const { sub, storage, tab } = await withWorker(stack, context, 'sw-chaos');
        const others = [
          await openSdkPage(stack, context, { sub, storage, tab: 'second', backgroundSync: true }),
          await openSdkPage(stack, context, { sub, storage, tab: 'third', backgroundSync: true }),
        ];
        const issued = new Map<string, number>();
        for (const other of others) {
          other.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED .*\/api\//);
          await goOffline(stack, context);
          const keys = await other.sdk((page) => Array.from({ length: 10 }, (_, i) => page.award(i + 1)));
          expect(await other.sdk((page, k) => page.persisted(k), keys)).toEqual(keys.map(() => true));
          for (const [i, key] of keys.entries()) issued.set(key, i + 1);
          await other.page.close();
          stack.dropTab(other === others[0] ? 'second' : 'third');
        }
        for (const [key, points] of await queueOfflineAndClose(
          stack,
          context,
          tab,
          Array.from({ length: 10 }, (_, i) => 11 + i),
        ))
          issued.set(key, points);

        await stack.setFaults({
          seed: 7,
          errorRate: 0.3,
          errorStatuses: [500, 503, 429],
          retryAfterSeconds: 0,
          lostAckRate: 0.2,
          lostAckMode: 'mixed',
        });
        try {
          const online = performance.now();
          await backOnline(stack, context);
          await until(
            async () => new Set((await stack.ledgerOf(sub)).map((e) => e.idempotencyKey)).size >= issued.size,
            'the worker to deliver',
            50_000,
          );
          console.info(
            `closed-tab delivery under faults: ${issued.size} awards from 3 tabs, ${(performance.now() - online).toFixed(0)} ms, ${carrying(stack, issued.keys()).length} request(s)`,
          );
        } finally {
          await stack.setFaults({});
        }
        await expectExactlyOnce(stack, sub, issued);
        expect(context.pages()).toEqual([]);
        expect(new Set(carrying(stack, issued.keys()).map((r) => r.tab))).toEqual(new Set(['sw']));
      }),
    75_000,
  );
});
