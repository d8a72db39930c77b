import { expect, it } from 'vitest';
import { createFlushLock, type Lease } from '../../src/client/lock.js';
import { memoryKV, type KV } from '../../src/client/store.js';

// Node has no Web Locks: the lease in the store is what createFlushLock uses here.

it('a lease the store cannot write does not turn every flush into a silent busy: the drain runs and the failure is told (main a0b4a06 ran nothing, told nothing)', async () => {
  const broken: KV<Lease> = { ...memoryKV<Lease>(), update: () => Promise.reject(new Error('connection closed')) };
  const failures: unknown[] = [];
  const lock = createFlushLock('qp-lock-test', broken, 0, (error) => failures.push(error));
  const ran: string[] = [];
  await lock(async () => void ran.push('drain'));
  expect(ran).toEqual(['drain']);
  expect(failures.length).toBeGreaterThan(0);
  expect(String(failures[0])).toContain('connection closed');
});

it('a working lease still excludes a second holder', async () => {
  const store = memoryKV<Lease>();
  const first = createFlushLock('qp-lock-test', store);
  const second = createFlushLock('qp-lock-test', store);
  const ran: string[] = [];
  await first(async () => {
    await second(async () => void ran.push('second'));
    ran.push('first');
  });
  expect(ran).toEqual(['first']);
});
