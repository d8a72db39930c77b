// @vitest-environment happy-dom
// Nothing of quest-points breaks a game's start for an environment reason, and the client says what holds here:
// the environment in the snapshot and `environment:changed`, `persisted` on every award:* event.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Environment, QuestPoints } from '../../src/client/index.js';
import { backgroundSync, registerWorker } from '../../src/sw/page.js';
import { fakeRelay, json, testClients, until } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(async () => {
  await closeAll();
  Reflect.deleteProperty(navigator, 'serviceWorker');
});

/** navigator.serviceWorker as a sandboxed frame has it: reading it throws. */
function sandboxedServiceWorker() {
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    get() {
      throw new DOMException(
        "Failed to read the 'serviceWorker' property from 'Navigator': Service worker is disabled because the context is sandboxed",
        'SecurityError',
      );
    },
  });
}

const environments = (qp: QuestPoints) => {
  const seen: Environment[] = [];
  qp.on('environment:changed', ({ environment }) => void seen.push(environment));
  return seen;
};

describe('the environment: said at start-up, in the snapshot and an event', () => {
  it('a top-level page with IndexedDB and no backgroundSync: indexeddb, not partitioned, closed-tab delivery not configured', async () => {
    const qp = client({ fetch: fakeRelay().fetch });
    const seen = environments(qp);
    await until(() => seen.length === 1);
    expect(seen[0]).toEqual({
      storage: 'indexeddb',
      framed: false,
      sandboxed: false,
      partitioned: false,
      persistent: null,
      closedTabDelivery: { available: false, reason: 'not-configured' },
    });
    expect(qp.getSnapshot().environment).toBe(seen[0]);
  });

  it('memory storage by option: memory, and why', async () => {
    const qp = client({ fetch: fakeRelay().fetch, storage: 'memory' });
    const seen = environments(qp);
    await until(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ storage: 'memory', storageReason: 'option', closedTabDelivery: { reason: 'not-configured' } });
  });

  it('backgroundSync() where reading navigator.serviceWorker throws (a sandboxed frame): nothing throws, and it says why', async () => {
    sandboxedServiceWorker();
    let qp: QuestPoints | undefined;
    const sync = backgroundSync();
    expect(() => {
      qp = client({
        fetch: fakeRelay((req) => (req.method === 'POST' ? json(503, { success: false, message: 'busy' }) : undefined)).fetch,
        backgroundSync: sync,
      });
    }).not.toThrow();
    const seen = environments(qp!);
    qp!.award({ eventPoints: 1 });
    await until(() => seen.length >= 1);
    expect(seen[0]!.closedTabDelivery).toEqual({ available: false, reason: 'no-service-worker' });
    expect(await sync()).toEqual({ available: false, reason: 'no-service-worker' });
  });

  it('a registration refused (InvalidAccessError, as from a frame) is said: closed-tab delivery off, refused', async () => {
    const registration = {
      sync: {
        register: async () => {
          throw new DOMException('Attempted to register a sync event without a window', 'InvalidAccessError');
        },
      },
    };
    Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: { getRegistration: async () => registration } });
    (globalThis as { SyncManager?: unknown }).SyncManager = class {};
    try {
      const busy = fakeRelay((req) => (req.method === 'POST' ? json(503, { success: false, message: 'busy' }) : undefined));
      const qp = client({ fetch: busy.fetch, backgroundSync: backgroundSync() });
      const seen = environments(qp);
      await until(() => seen.length >= 1);
      expect(seen[0]!.closedTabDelivery).toEqual({ available: true });
      qp.award({ eventPoints: 1 });
      await until(() => seen.length >= 2);
      expect(seen.at(-1)!.closedTabDelivery).toEqual({ available: false, reason: 'refused' });
      expect(qp.getSnapshot().environment.closedTabDelivery).toEqual({ available: false, reason: 'refused' });
    } finally {
      Reflect.deleteProperty(globalThis, 'SyncManager');
    }
  });

  it('registerWorker never rejects: a refused registration resolves with the reason', async () => {
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: {
        register: async () => {
          throw new DOMException('The user denied permission to use Service Worker.', 'NotSupportedError');
        },
      },
    });
    expect(await registerWorker('/quest-points-sw.js')).toEqual({
      registered: false,
      reason: 'NotSupportedError: The user denied permission to use Service Worker.',
    });
    sandboxedServiceWorker();
    expect(await registerWorker('/quest-points-sw.js')).toMatchObject({ registered: false });
  });
});

describe('award:* events carry persisted', () => {
  it('true once in IndexedDB, on queued, sent and retrying', async () => {
    let fail = true;
    const relay = fakeRelay((req) => (req.method === 'POST' && fail ? json(503, { success: false, message: 'busy' }) : undefined));
    const qp = client({ fetch: relay.fetch });
    const carried: [string, boolean][] = [];
    for (const name of ['award:queued', 'award:retrying', 'award:sent'] as const)
      qp.on(name, (e: { persisted: Promise<boolean> }) => void e.persisted.then((p) => carried.push([name, p])));
    const { settled } = qp.award({ eventPoints: 1 });
    await until(() => carried.some(([name]) => name === 'award:retrying'));
    fail = false;
    await qp.flush();
    await settled;
    await until(() => carried.some(([name]) => name === 'award:sent'));
    expect(new Set(carried.map(([name]) => name))).toEqual(new Set(['award:queued', 'award:retrying', 'award:sent']));
    expect(carried.every(([, p]) => p)).toBe(true);
  });

  it('false in memory, on queued and rejected', async () => {
    const relay = fakeRelay((req) => (req.method === 'POST' ? json(422, { success: false, message: 'no' }) : undefined));
    const qp = client({ fetch: relay.fetch, storage: 'memory' });
    const carried: [string, boolean][] = [];
    for (const name of ['award:queued', 'award:rejected'] as const)
      qp.on(name, (e: { persisted: Promise<boolean> }) => void e.persisted.then((p) => carried.push([name, p])));
    await qp.award({ eventPoints: 1 }).settled;
    await until(() => carried.length === 2);
    expect(carried.sort()).toEqual([
      ['award:queued', false],
      ['award:rejected', false],
    ]);
  });
});

describe('the indexedDB option (a Storage Access handle: the unpartitioned store)', () => {
  it('awards are kept in the IndexedDB given, not the page’s own', async () => {
    const { IDBFactory } = await import('fake-indexeddb');
    const unpartitioned = new IDBFactory();
    const busy = fakeRelay((req) => (req.method === 'POST' ? json(503, { success: false, message: 'busy' }) : undefined));
    const qp = client({ fetch: busy.fetch, storageName: 'saa-game', indexedDB: unpartitioned, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    const { persisted, idempotencyKey } = qp.award({ eventPoints: 2 });
    expect(await persisted).toBe(true);
    const names = async (factory: globalThis.IDBFactory) => (await factory.databases()).map((d) => d.name);
    expect(await names(unpartitioned)).toContain('saa-game:outbox');
    expect(await names(indexedDB)).not.toContain('saa-game:outbox');
    expect((await qp.pending()).map((a) => a.idempotencyKey)).toEqual([idempotencyKey]);
  });
});

describe('an insecure context (plain http on a LAN address): no crypto.randomUUID', () => {
  it('the client starts and keys its awards with v4 UUIDs all the same, delivered', async () => {
    const randomUUID = crypto.randomUUID;
    Object.defineProperty(crypto, 'randomUUID', { configurable: true, value: undefined });
    try {
      const relay = fakeRelay();
      const qp = client({ fetch: relay.fetch });
      const { idempotencyKey, settled } = qp.award({ eventPoints: 1 });
      expect(idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect((await settled).outcome).toBe('sent');
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { configurable: true, value: randomUUID });
    }
  });
});

describe('persistent storage', () => {
  it('persist: true asks navigator.storage.persist() when not yet persistent; the answer is environment.persistent', async () => {
    const asked: string[] = [];
    Object.defineProperty(navigator, 'storage', {
      configurable: true,
      value: {
        persisted: async () => {
          asked.push('persisted');
          return false;
        },
        persist: async () => {
          asked.push('persist');
          return true;
        },
      },
    });
    try {
      const without = client({ fetch: fakeRelay().fetch });
      const seenWithout = environments(without);
      await until(() => seenWithout.length === 1);
      expect(seenWithout[0]!.persistent).toBe(false);
      expect(asked).toEqual(['persisted']);
      const qp = client({ fetch: fakeRelay().fetch, persist: true });
      const seen = environments(qp);
      await until(() => seen.length === 1);
      expect(seen[0]!.persistent).toBe(true);
      expect(asked).toEqual(['persisted', 'persisted', 'persist']);
    } finally {
      Reflect.deleteProperty(navigator, 'storage');
    }
  });
});
