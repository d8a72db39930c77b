// Delivery with every tab closed: quest-points/sw.js in Chromium. Awards are queued while the context is offline,
// the page registers the Background Sync tag and is closed; back online, Chromium fires `sync` (the real event: with
// DevTools offline emulation Chromium holds the tag until context.setOffline(false)) and the worker drains the outbox.
import { performance } from 'node:perf_hooks';
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, nextAward, openSdkPage, uniqueId, until, type OpenedPage, type Stack, useBrowserStack } from './harness.js';

const inContext = useBrowserStack();

interface Scenario {
  sub: string;
  storage: string;
  tab: OpenedPage;
}

/** A page with backgroundSync on and the worker registered for its storage; `refuse` makes the worker's first token bad. */
async function withWorker(stack: Stack, context: BrowserContext, name: string, refuse?: string): Promise<Scenario> {
  const sub = uniqueId(name);
  const storage = uniqueId('sw');
  const tab = await openSdkPage(stack, context, { sub, storage, tab: 'page', backgroundSync: true, backoffBase: 50, backoffMax: 200 });
  const token = `/token?${new URLSearchParams({ sub, tab: 'sw', instance: 'worker', ...(refuse ? { refuse } : {}) })}`;
  const url = `/sw.js?${new URLSearchParams({ relayUrl: '/api', tokenUrl: token, storageName: storage })}`;
  await tab.sdk((page, u) => page.registerWorker(u), url);
  await until(async () => (await tab.sdk((page) => page.snapshot())).points[0]?.confirmedAt, 'the first read of the points');
  return { sub, storage, tab };
}

/** Offline: the awards are queued and committed, a send fails, the page registers the tag; then it is closed. */
async function queueOfflineAndClose(context: BrowserContext, tab: OpenedPage, points: number[]): Promise<Map<string, number>> {
  tab.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED .*\/api\//);
  await context.setOffline(true);
  const keys = await tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
  expect(await tab.sdk((page, k) => page.persisted(k), keys)).toEqual(keys.map(() => true));
  await until(async () => (await tab.sdk((page) => page.events)).some((e) => e.name === 'award:retrying' && e.data.reason === 'network'), 'a failed send');
  await until(async () => (await tab.sdk((page) => page.syncTags())).includes('quest-points'), 'the sync tag');
  expect((await tab.sdk((page) => page.storedOutbox())).map((r) => r.key).sort()).toEqual([...keys].sort());
  expect(tab.errors).toEqual([]);
  await tab.page.close();
  expect(context.pages()).toEqual([]);
  return new Map(keys.map((key, i) => [key, points[i]!]));
}

/** Every request that carried one of these keys. */
const carrying = (stack: Stack, keys: Iterable<string>) => {
  const wanted = new Set(keys);
  return stack.awards.filter((r) => r.keys.some((key) => wanted.has(key)));
};

describe('quest-points/sw: delivery with every tab closed (Chromium Background Sync)', () => {
  it('awards queued offline are delivered by the worker with no page open: exactly once, same keys', () =>
    inContext(async (stack, context) => {
      const { sub, storage, tab } = await withWorker(stack, context, 'sw-closed');
      const issued = await queueOfflineAndClose(context, tab, Array.from({ length: 25 }, (_, i) => i + 1));

      const online = performance.now();
      await context.setOffline(false);
      await until(async () => (await stack.ledgerOf(sub)).length >= issued.size, 'the worker to deliver', 20_000);
      const deliveredMs = performance.now() - online;
      expect(context.pages()).toEqual([]);

      await expectExactlyOnce(stack, sub, issued);
      const requests = carrying(stack, issued.keys());
      // The worker sent them (its token), each key in one request: no page, no duplicate.
      expect(requests.map((r) => r.tab)).toEqual(requests.map(() => 'sw'));
      const sends = requests.flatMap((r) => r.keys);
      expect(sends.length).toBe(issued.size);
      console.info(`closed-tab delivery: ${issued.size} awards, ${deliveredMs.toFixed(0)} ms from online to delivered, ${requests.length} request(s), ${sends.length - issued.size} duplicate sends`);

      // The next page finds the outbox empty.
      const next = await openSdkPage(stack, context, { sub, storage });
      expect(await next.sdk((page) => page.storedOutbox())).toEqual([]);
      expect(await next.sdk((page) => page.pendingKeys())).toEqual([]);
      // The sync event succeeded: the tag is not waiting for another attempt.
      expect(await next.sdk((page) => page.syncTags())).toEqual([]);
      expect(next.errors).toEqual([]);
    }), 45_000);
});
