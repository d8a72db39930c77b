// @vitest-environment happy-dom
// rescue-merge.ts loads only when a rescue was found; a chunk that cannot load (offline, not cached) writes nothing,
// leaves the rescues for a later page, and does not degrade the store.
import { afterEach, expect, it, vi } from 'vitest';
import { createOutbox } from '../../src/client/outbox.js';
import { createRescue } from '../../src/client/rescue.js';
import { memoryKV } from '../../src/client/store.js';
import type { DeadLetter, PendingAward } from '../../src/client/types.js';

const loads = vi.hoisted(() => ({ failing: true, count: 0 }));
vi.mock('../../src/client/rescue-merge.js', async (original) => {
  loads.count++;
  if (loads.failing) throw new TypeError('Failed to fetch dynamically imported module');
  return original();
});

afterEach(() => localStorage.clear());

const award: PendingAward = { questId: 'q', serviceUserId: 'p', eventPoints: 1, idempotencyKey: 'k1', queuedAt: 1, seq: 1 };

it('a rescue merge that cannot load leaves the rescues and the store as they were; the next page merges them', async () => {
  localStorage.setItem('qp:rescue:old', JSON.stringify([award]));
  const queue = memoryKV<PendingAward>();
  const degraded = vi.fn();
  const first = createOutbox({ queue, dead: memoryKV<DeadLetter>(), degraded, rescue: createRescue('qp:rescue:') });
  await first.landed();
  expect(loads.count).toBe(1);
  expect(degraded).not.toHaveBeenCalled();
  expect(await queue.keys()).toEqual([]);
  expect(localStorage.getItem('qp:rescue:old')).not.toBeNull();

  loads.failing = false;
  const next = createOutbox({ queue, dead: memoryKV<DeadLetter>(), degraded, rescue: createRescue('qp:rescue:') });
  await next.landed();
  expect(await queue.keys()).toEqual(['k1']);
  expect(localStorage.getItem('qp:rescue:old')).toBeNull();
  expect(degraded).not.toHaveBeenCalled();
});

it('a page that found no rescue does not load the merge at all', async () => {
  const before = loads.count;
  const outbox = createOutbox({ queue: memoryKV(), dead: memoryKV(), degraded: vi.fn(), rescue: createRescue('qp:none:') });
  await outbox.landed();
  expect(loads.count).toBe(before);
});
