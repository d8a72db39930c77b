import { expect, it, vi } from 'vitest';
import { leaseLock } from '../../src/client/lease.js';
import { createFlushLock, type Lease } from '../../src/client/lock.js';
import { memoryKV, type KV } from '../../src/client/store.js';

// Node has no Web Locks: the lease in the store is what createFlushLock uses here.
const leased = (store: KV<Lease>) => ({ store, load: async () => ({ leaseLock }) });

it('a lease the store cannot write does not turn every flush into a silent busy: the drain runs and the failure is told (main a0b4a06 ran nothing, told nothing)', async () => {
  const broken: KV<Lease> = { ...memoryKV<Lease>(), update: () => Promise.reject(new Error('connection closed')) };
  const failures: unknown[] = [];
  const lock = createFlushLock('qp-lock-test', leased(broken), 0, (error) => failures.push(error));
  const ran: string[] = [];
  await lock(async () => void ran.push('drain'));
  expect(ran).toEqual(['drain']);
  expect(failures.length).toBeGreaterThan(0);
  expect(String(failures[0])).toContain('connection closed');
});

it('a working lease still excludes a second holder', async () => {
  const store = memoryKV<Lease>();
  const first = createFlushLock('qp-lock-test', leased(store));
  const second = createFlushLock('qp-lock-test', leased(store));
  const ran: string[] = [];
  await first(async () => {
    await second(async () => void ran.push('second'));
    ran.push('first');
  });
  expect(ran).toEqual(['first']);
});

it('a lease module that cannot load (offline, not cached) excludes nobody: the drain runs, the failure is told, and the next drain loads it again', async () => {
  const failures: unknown[] = [];
  let loads = 0;
  const load = async () => {
    if (++loads === 1) throw new Error('chunk not fetched');
    return { leaseLock };
  };
  const store = memoryKV<Lease>();
  const lock = createFlushLock('qp-lock-test', { store, load }, 0, (error) => failures.push(error));
  const ran: string[] = [];
  await lock(async () => void ran.push('first'));
  expect(ran).toEqual(['first']);
  expect(String(failures[0])).toContain('chunk not fetched');
  // Loaded now: the lease is taken (and released) around the drain.
  await lock(async () => {
    ran.push(`second, lease held: ${(await store.get('lease'))!.until > Date.now()}`);
  });
  expect(loads).toBe(2);
  expect(ran).toEqual(['first', 'second, lease held: true']);
  expect((await store.get('lease'))!.until).toBe(0);
});

it('a lease lost while held (renewal late, as a throttled hidden tab runs its timers, and another tab took it) stops the drain: it does not send beside the new holder', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  try {
    const store = memoryKV<Lease>();
    const lock = createFlushLock('qp-lock-test', leased(store));
    let batches = 0;
    let aborted = false;
    let release!: () => void;
    const ended = new Promise<void>((resolve) => (release = resolve));
    const held = lock(async (lost) => {
      // A drain: a batch at a time, until the lock is lost (or far longer than any test).
      while (!lost?.aborted && batches < 1000) {
        batches++;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      aborted = lost?.aborted ?? false;
      release();
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    // The lease expired under a throttled renewal: another tab took it.
    await store.update('lease', () => ({ owner: 'another tab', until: Date.now() + 10_000 }));
    await vi.advanceTimersByTimeAsync(4000);
    await ended;
    await held;
    expect(aborted).toBe(true);
    expect(batches).toBeLessThan(1000);
    // The other tab's lease is left as it is.
    expect((await store.get('lease'))!.owner).toBe('another tab');
  } finally {
    vi.useRealTimers();
  }
});
