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

  it('sweeps expired windows once it grows, keeping live ones', async () => {
    let now = 0;
    const store = createMemoryCounterStore({ now: () => now, sweepAt: 3 });
    await store.increment('live', 100_000);
    await store.increment('old1', 10);
    await store.increment('old2', 10);
    now = 50;
    await store.increment('new', 10); // triggers the sweep
    expect(await store.increment('live', 100_000)).toEqual({ count: 2, resetInMs: 99_950 });
  });
});
