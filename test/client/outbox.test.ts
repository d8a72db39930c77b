import { describe, expect, it } from 'vitest';
import { VANISHED_MS } from '../../src/client/mirror.js';
import { createOutbox } from '../../src/client/outbox.js';
import { memoryKV, type KV } from '../../src/client/store.js';
import type { DeadLetter, PendingAward } from '../../src/client/types.js';

// The outbox against a store the test controls: writes that fail (quota) or wait for the test.

const quota = () => Object.assign(new Error('quota exceeded'), { name: 'QuotaExceededError' });

/** A memory store whose writes fail while `failing`, and wait for `release()` while `held`. */
function controlled<T>() {
  const inner = memoryKV<T>();
  const ctl: { failing: boolean; held?: Promise<void>; release(): void } = { failing: false, release: () => {} };
  const gate = async () => {
    await ctl.held;
    if (ctl.failing) throw quota();
  };
  const kv: KV<T> = {
    ...inner,
    get: async (key) => {
      await gate();
      return inner.get(key);
    },
    setMany: async (pairs) => {
      await gate();
      await inner.setMany(pairs);
    },
    delMany: async (keys) => {
      await gate();
      await inner.delMany(keys);
    },
  };
  return {
    kv,
    ctl,
    hold() {
      ctl.held = new Promise((resolve) => (ctl.release = resolve));
    },
  };
}

let n = 0;
const award = (points = 1): PendingAward => ({
  questId: 'q',
  serviceUserId: 'u',
  eventPoints: points,
  idempotencyKey: `key-${++n}`,
  queuedAt: Date.now(),
  seq: n,
});

describe('outbox', () => {
  it('recover() goes through the store chain and clears only what it wrote: an award made during recovery is kept (lost on main a0b4a06)', async () => {
    const queue = controlled<PendingAward>();
    const outbox = createOutbox({ queue: queue.kv, dead: memoryKV<DeadLetter>(), degraded() {} });
    queue.ctl.failing = true;
    const a = award();
    expect(await outbox.add(a)).toBe(false);
    expect(outbox.degraded).toBe(true);
    // The store works again, but slowly: B is made while the replay of A is in flight.
    queue.ctl.failing = false;
    queue.hold();
    const recovered = outbox.recover();
    const b = award();
    const persistedB = outbox.add(b);
    await new Promise((resolve) => setTimeout(resolve, 5));
    queue.ctl.release();
    queue.ctl.held = undefined;
    expect(await recovered).toBe(true);
    await persistedB;
    await outbox.landed();
    expect((await queue.kv.keys()).sort()).toEqual([a.idempotencyKey, b.idempotencyKey].sort());
    expect((await outbox.reload()).map((r) => r.idempotencyKey)).toEqual([a.idempotencyKey, b.idempotencyKey]);
  });

  it('recover() stores the dead letters before it deletes their awards: a refused award is never in neither (found by the model test)', async () => {
    const queue = controlled<PendingAward>();
    const dead = controlled<DeadLetter>();
    const outbox = createOutbox({ queue: queue.kv, dead: dead.kv, degraded() {} });
    const a = award();
    expect(await outbox.add(a)).toBe(true);
    // Refused while the disk is full: the dead letter cannot be stored, so the award stays in the store's queue.
    dead.ctl.failing = true;
    await outbox.kill([{ ...a, status: 400, message: 'no', rejectedAt: 0 }]);
    outbox.remove([a.idempotencyKey], true);
    await outbox.landed();
    // Still full for dead letters (a write), while deletes go through: the award must not leave the queue.
    expect(await outbox.recover()).toBe(false);
    expect(await queue.kv.keys()).toEqual([a.idempotencyKey]);
    dead.ctl.failing = false;
    expect(await outbox.recover()).toBe(true);
    expect(await queue.kv.keys()).toEqual([]);
    expect((await dead.kv.all()).map((d) => d.idempotencyKey)).toEqual([a.idempotencyKey]);
  });

  it('dropDead() rejects when the store fails instead of saying there was no such dead letter (main a0b4a06 answered false)', async () => {
    const dead = controlled<DeadLetter>();
    const degraded: string[] = [];
    const outbox = createOutbox({ queue: memoryKV(), dead: dead.kv, degraded: (reason) => degraded.push(reason) });
    const letter: DeadLetter = { ...award(), status: 400, message: 'no', rejectedAt: 0 };
    await dead.kv.setMany([[letter.idempotencyKey, letter]]);
    dead.ctl.failing = true;
    await expect(outbox.dropDead(letter.idempotencyKey)).rejects.toThrow('quota');
    expect(degraded).toEqual(['quota']);
    dead.ctl.failing = false;
    expect(await outbox.dropDead(letter.idempotencyKey)).toBe(true);
    expect(await outbox.dropDead(letter.idempotencyKey)).toBe(false);
  });

  it('an award gone from the store whose settling tab never told is handed over after VANISHED_MS, not kept for the page life (main a0b4a06 kept it)', async () => {
    const queue = memoryKV<PendingAward>();
    const clock = { now: 1_000_000 };
    const mine = createOutbox({ queue, dead: memoryKV(), degraded() {}, now: () => clock.now });
    const other = createOutbox({ queue, dead: memoryKV(), degraded() {} });
    const a = award();
    await mine.add(a);
    // Another tab acknowledged and deleted it, then died before its 'done' went out.
    other.addRemote([a]);
    other.remove([a.idempotencyKey], true);
    await other.landed();
    expect(await mine.reload()).toEqual([]);
    expect(mine.unheard()).toEqual([]);
    clock.now += VANISHED_MS;
    expect(mine.unheard()).toEqual([a]);
    // Handed over once: a late 'done' finds nothing, so nothing is told twice.
    expect(mine.unheard()).toEqual([]);
    expect(mine.remove([a.idempotencyKey], false)).toEqual([]);
  });
});
