// Where web games are played: the game framed cross-site by a portal (127.0.0.1 in localhost), in Chromium with storage
// partitioning on. Each scenario asserts exactly-once for every award whose `persisted` resolved true, no exception to
// the game, and what the client reported; the table is printed at the end (docs/hosting.md quotes it).
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openSdkPage, setupBrowserStack, uniqueId, until, type Stack } from '../browser/harness.js';
import { denyStorageInFrames, openFramed, portalOrigin, reported, verdict, type FramedGame, type Row } from './portal.js';

const inContext = setupBrowserStack({ portal: fileURLToPath(new URL('pages/portal.ts', import.meta.url)) });
const AWARDS = 20;
const rows: Row[] = [];

afterAll(() => {
  if (!rows.length) return;
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  console.info(
    [
      line(['scenario', 'issued', 'persisted true', 'delivered', 'duplicates', 'what the client reported']),
      line(['---', '---', '---', '---', '---', '---']),
      ...rows.map((r) => line([r.scenario, r.issued, r.persistedTrue, r.delivered, r.duplicates, r.reported])),
    ].join('\n'),
  );
});

/** `count` awards of 1..5 points in the game; their keys and persisted answers. */
async function awardAll(game: FramedGame, count = AWARDS) {
  const keys = await game.sdk((page, n) => Array.from({ length: n }, (_, i) => page.award(1 + (i % 5))), count);
  const persisted = (await game.sdk((page, k) => page.persisted(k), keys))!;
  return { keys, persisted };
}

const settledAll = (game: FramedGame, keys: string[]) =>
  until(
    async () => {
      const outcomes = await game.sdk((page) => page.outcomes);
      return keys.every((key) => outcomes[key] === 'sent');
    },
    'every award sent',
    30_000,
  );

/** Ends a scenario: the verdict, what the client reported, no exception to the game; one row of the table. */
async function record(scenario: string, stack: Stack, game: FramedGame, sub: string, keys: string[], persisted: boolean[]) {
  const result = await verdict(stack, sub, keys, persisted);
  const [snapshot, events] = await Promise.all([game.sdk((page) => page.snapshot()), game.sdk((page) => page.events)]);
  expect(events.filter((e) => e.name === 'error')).toEqual([]);
  expect(game.errors).toEqual([]);
  const row = { scenario, ...result, reported: reported(snapshot as never, events) };
  rows.push(row);
  console.info(JSON.stringify(row));
  return { snapshot, events, row };
}

const framedOnline = (scenario: string, sandbox?: string) =>
  inContext(async (stack, context) => {
    const sub = uniqueId('portal');
    const game = await openFramed(stack, context, { sub, storage: uniqueId('p'), backgroundSync: true, sandbox });
    const { keys, persisted } = await awardAll(game);
    expect(persisted).toEqual(keys.map(() => true));
    await settledAll(game, keys);
    const { snapshot, row } = await record(scenario, stack, game, sub, keys, persisted);
    expect(row.delivered).toBe(AWARDS);
    expect(snapshot.environment).toMatchObject({
      storage: 'indexeddb',
      framed: true,
      sandboxed: false,
      partitioned: true,
      closedTabDelivery: { available: false, reason: 'framed' },
    });
  });

/** Offline as a player's device is: the context offline and the gateway dropping /api/* (keepalive batches too). */
async function offline(stack: Stack, context: BrowserContext, on: boolean) {
  stack.blockApi(on);
  await context.setOffline(on);
}

describe('portal: the game framed cross-site, storage partitioned', () => {
  it(
    'partitioning is really on: a cross-site frame sees another IndexedDB than the top-level page of its own origin; a same-site frame sees the same',
    () =>
      inContext(async (stack, context) => {
        const top = await context.newPage();
        await top.goto(`${stack.origin}/portal.html`);
        const db = uniqueId('probe');
        const write = (name: string) =>
          new Promise<void>((resolve, reject) => {
            const request = indexedDB.open(name);
            request.onupgradeneeded = () => request.result.createObjectStore('kv');
            request.onsuccess = () => {
              const tx = request.result.transaction('kv', 'readwrite');
              tx.objectStore('kv').put('top-level', 'who');
              tx.oncomplete = () => resolve(request.result.close());
            };
            request.onerror = () => reject(request.error);
          });
        await top.evaluate(write, db);
        const read = (name: string) => indexedDB.databases().then((all) => all.some((d) => d.name === name));
        const framedIn = async (portal: string) => {
          const page = await context.newPage();
          await page.goto(`${portal}/portal.html?${new URLSearchParams({ src: `${stack.origin}/portal.html` })}`);
          await until(() => page.frames().length > 1 && page.frames()[1]!.url().startsWith(stack.origin), 'the frame');
          const frame = page.frames().find((f) => f !== page.mainFrame())!;
          await frame.waitForLoadState();
          return frame.evaluate(read, db);
        };
        expect(await top.evaluate(read, db)).toBe(true);
        expect(await framedIn(portalOrigin(stack)), 'cross-site frame: partitioned').toBe(false);
        expect(await framedIn(stack.origin), 'same-site frame: the same storage').toBe(true);
      }),
    30_000,
  );

  it(
    'framed online: every award delivered once; the client says indexeddb, partitioned, no closed-tab delivery (framed)',
    () => framedOnline('framed, online'),
    45_000,
  );

  it(
    'framed in a Discord-like sandbox (allow-scripts allow-same-origin): the same',
    () => framedOnline('framed, sandbox with allow-same-origin (Discord-like)', 'allow-scripts allow-same-origin allow-forms allow-popups'),
    45_000,
  );

  it(
    'framed offline, then the portal reloaded: the outbox survives in the partitioned store, delivered once back online',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('portal-offline');
        const storage = uniqueId('p');
        const game = await openFramed(stack, context, { sub, storage, backgroundSync: true, backoffBase: 100, backoffMax: 500 });
        game.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED|ERR_EMPTY_RESPONSE|ERR_CONNECTION/);
        await offline(stack, context, true);
        const { keys, persisted } = await awardAll(game);
        expect(persisted).toEqual(keys.map(() => true));
        await until(async () => (await game.sdk((page) => page.snapshot())).online === false, 'the client offline');
        // The portal reloads (the page must load, so the device is back; the relay is still unreachable).
        await context.setOffline(false);
        await game.reload();
        expect((await game.sdk((page) => page.pendingKeys())).sort()).toEqual([...keys].sort());
        stack.blockApi(false);
        await game.sdk((page) => page.qp.flush());
        await until(async () => (await stack.ledgerOf(sub)).length >= keys.length, 'delivered after the reload', 30_000);
        await until(async () => (await game.sdk((page) => page.pendingKeys())).length === 0, 'the outbox empty');
        const { snapshot, events, row } = await record('framed, offline, portal reloaded', stack, game, sub, keys, persisted);
        expect(row.delivered).toBe(AWARDS);
        expect(events.some((e) => e.name === 'auth:required')).toBe(false);
        expect(snapshot.environment).toMatchObject({ storage: 'indexeddb', partitioned: true });
      }),
    60_000,
  );

  it(
    'framed beside a top-level tab of the same game: two outboxes (partitioned), each delivered once, none twice',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('portal-beside');
        const storage = uniqueId('p');
        const top = await openSdkPage(stack, context, { sub, storage, tab: 'top' });
        const game = await openFramed(stack, context, { sub, storage, tab: 'framed', backgroundSync: true });
        const topKeys = await top.sdk((page, n) => Array.from({ length: n }, (_, i) => page.award(1 + (i % 5))), AWARDS / 2);
        const framed = await awardAll(game, AWARDS / 2);
        const topPersisted = (await top.sdk((page, k) => page.persisted(k), topKeys))!;
        await settledAll(game, framed.keys);
        await until(async () => {
          const outcomes = await top.sdk((page) => page.outcomes);
          return topKeys.every((key) => outcomes[key] === 'sent');
        }, 'the top-level tab sent its awards');
        // Each saw only its own outbox: the frame's store is keyed by the portal's site.
        const keys = [...topKeys, ...framed.keys];
        const persisted = [...topPersisted, ...framed.persisted];
        expect(persisted).toEqual(keys.map(() => true));
        const { snapshot, row } = await record('framed beside a top-level tab', stack, game, sub, keys, persisted);
        expect(row.delivered).toBe(AWARDS);
        expect(snapshot.environment).toMatchObject({ partitioned: true });
        expect((await top.sdk((page) => page.snapshot())).environment).toMatchObject({ framed: false, partitioned: false });
        expect(top.errors).toEqual([]);
      }),
    45_000,
  );

  it(
    'sandbox without allow-same-origin: no storage, no worker; the game starts (backgroundSync() used to throw), awards kept in memory and delivered while open',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('portal-sandbox');
        const game = await openFramed(stack, context, { sub, storage: uniqueId('p'), backgroundSync: true, sandbox: 'allow-scripts' });
        const { keys, persisted } = await awardAll(game);
        expect(persisted).toEqual(keys.map(() => false));
        await settledAll(game, keys);
        const { snapshot, events, row } = await record('sandbox without allow-same-origin', stack, game, sub, keys, persisted);
        expect(row.delivered).toBe(AWARDS);
        expect(snapshot.environment).toMatchObject({
          storage: 'memory',
          storageReason: 'denied',
          sandboxed: true,
          closedTabDelivery: { available: false, reason: 'sandboxed' },
        });
        expect(events.filter((e) => e.name === 'storage:degraded').map((e) => e.data.reason)).toEqual(['denied']);
      }),
    45_000,
  );

  it(
    'storage denied in the frame (IndexedDB refused: SecurityError): memory, said once, persisted false, delivered while open',
    () =>
      inContext(async (stack, context) => {
        await denyStorageInFrames(context);
        const sub = uniqueId('portal-denied');
        const game = await openFramed(stack, context, { sub, storage: uniqueId('p'), backgroundSync: true });
        const { keys, persisted } = await awardAll(game);
        expect(persisted).toEqual(keys.map(() => false));
        await settledAll(game, keys);
        const { snapshot, events, row } = await record('framed, storage denied', stack, game, sub, keys, persisted);
        expect(row.delivered).toBe(AWARDS);
        expect(snapshot.environment).toMatchObject({ storage: 'memory', storageReason: 'denied', framed: true });
        expect(events.filter((e) => e.name === 'storage:degraded').map((e) => e.data.reason)).toEqual(['denied']);
      }),
    45_000,
  );

  it(
    'every tab closed while offline: a frame has no closed-tab delivery and says so; the awards wait in the store and go once when the portal is opened again',
    () =>
      inContext(async (stack, context) => {
        const sub = uniqueId('portal-closed');
        const storage = uniqueId('p');
        const game = await openFramed(stack, context, { sub, storage, tab: 'first', backgroundSync: true, backoffBase: 100, backoffMax: 500 });
        game.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED|ERR_EMPTY_RESPONSE|ERR_CONNECTION/);
        // The game registers its worker in the frame (partitioned, as a frame's worker is): Background Sync still cannot.
        const url = `/sw.js?${new URLSearchParams({ relayUrl: '/api', tokenUrl: `/token?sub=${sub}&tab=sw`, storageName: storage })}`;
        await game.sdk((page, u) => page.registerWorker(u), url);
        await offline(stack, context, true);
        const { keys, persisted } = await awardAll(game);
        expect(persisted).toEqual(keys.map(() => true));
        await until(
          async () => (await game.sdk((page) => page.events)).some((e) => e.name === 'award:retrying' && e.data.reason === 'network'),
          'a failed send',
        );
        const before = await game.sdk((page) => page.snapshot());
        expect(before.environment).toMatchObject({ framed: true, closedTabDelivery: { available: false, reason: 'framed' } });
        expect(await game.sdk((page) => page.syncTags())).toEqual([]);
        expect(game.errors).toEqual([]);
        await game.page.close();
        stack.dropTab('first');
        await offline(stack, context, false);
        // With every tab closed nothing sends them; the player opens the portal again.
        const deliveredWhileClosed = (await stack.ledgerOf(sub)).length;
        stack.undropTabs();
        const again = await openFramed(stack, context, { sub, storage, tab: 'again', backgroundSync: true });
        await until(async () => (await stack.ledgerOf(sub)).length >= keys.length, 'delivered once the portal is open again', 30_000);
        await until(async () => (await again.sdk((page) => page.pendingKeys())).length === 0, 'the outbox empty');
        const { row } = await record('every tab closed, then the portal opened again', stack, again, sub, keys, persisted);
        row.reported = `before closing: ${reported(before as never, [])}; delivered while closed: ${deliveredWhileClosed}`;
        expect(row.delivered).toBe(AWARDS);
      }),
    60_000,
  );
});
