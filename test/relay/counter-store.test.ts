import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/relay/index.js';

describe('in-memory counter store', () => {
  it('counts hits in a fixed window per key and reports the time left', async () => {
    let now = 1_000;
    const store = createMemoryCounterStore({ now: () => now });
    expect(await store.increment('a', 10_000)).toEqual({ count: 1, resetInMs: 10_000 });
    now += 4_000;
    expect(await store.increment('a', 10_000)).toEqual({ count: 2, resetInMs: 6_000 });
    expect(await store.increment('b', 10_000)).toEqual({ count: 1, resetInMs: 10_000 });
    now += 6_000;
    expect(await store.increment('a', 10_000)).toEqual({ count: 1, resetInMs: 10_000 });
  });

  it('holds at most maxKeys keys, dropping the least recently counted first', async () => {
    let now = 0;
    const store = createMemoryCounterStore({ now: () => now, maxKeys: 3 });
    await store.increment('a', 100_000);
    await store.increment('b', 100_000);
    await store.increment('c', 100_000);
    expect(await store.increment('a', 100_000)).toEqual({ count: 2, resetInMs: 100_000 }); // a is now the most recent
    now = 10;
    await store.increment('d', 100_000); // evicts b, the least recently counted
    expect(await store.increment('a', 100_000)).toEqual({ count: 3, resetInMs: 99_990 });
    expect(await store.increment('b', 100_000)).toEqual({ count: 1, resetInMs: 100_000 });
  });

  it('does O(1) work per hit: 10,000 new keys cost the same with 100,000 live keys as with none', async () => {
    const store = createMemoryCounterStore();
    const fresh = async (prefix: string) => {
      const started = performance.now();
      for (let i = 0; i < 10_000; i++) await store.increment(`${prefix}:${i}`, 60_000);
      return performance.now() - started;
    };
    const empty = await fresh('warm');
    for (let i = 0; i < 100_000; i++) await store.increment(`live:${i}`, 60_000);
    const full = await fresh('new');
    // A scan per new key (the old store) made this 100x slower; allow for a noisy shared machine.
    expect(full).toBeLessThan(Math.max(empty * 10, 500));
  });

  it('refuses a maxKeys that is not a positive integer', () => {
    expect(() => createMemoryCounterStore({ maxKeys: 0 })).toThrow(/maxKeys must be a positive integer/);
  });
});
