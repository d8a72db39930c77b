// The relay's bounded maps (lru.ts): second chance, a bound that holds, O(1) reads that write nothing.
import { describe, expect, it } from 'vitest';
import { createLru } from '../../src/relay/lru.js';

describe('bounded map (second chance)', () => {
  it('drops the oldest entry not read since it was queued; a read entry gets another round', () => {
    const lru = createLru<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4); // a was read: passed over; b goes
    expect(lru.get('b')).toBeUndefined();
    lru.set('e', 5); // c was never read: it goes, and a (read) stays again
    expect(['a', 'c', 'd', 'e'].map((k) => lru.get(k))).toEqual([1, undefined, 4, 5]);
    expect(lru.size).toBe(3);
  });

  it('never holds more than its bound, whatever is read, written or deleted', () => {
    const lru = createLru<number, number>(100);
    for (let i = 0; i < 10_000; i++) {
      lru.set(i % 357, i);
      lru.get((i * 7) % 357);
      if (i % 11 === 0) lru.delete(i % 13);
      expect(lru.size).toBeLessThanOrEqual(100);
    }
    // Every entry read since it was queued: a full round unmarks them, and the oldest goes.
    const all = createLru<number, number>(3);
    for (const k of [1, 2, 3]) all.set(k, k);
    for (const k of [1, 2, 3]) all.get(k);
    all.set(4, 4);
    expect([1, 2, 3, 4].map((k) => all.get(k))).toEqual([undefined, 2, 3, 4]);
    // A bound of 0 keeps nothing.
    const none = createLru<string, number>(0);
    none.set('a', 1);
    expect([none.get('a'), none.size]).toEqual([undefined, 0]);
  });

  it('a write to a present key keeps one entry and counts as a use', () => {
    const lru = createLru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('a', 3);
    lru.set('c', 4);
    expect([lru.get('a'), lru.get('b'), lru.get('c'), lru.size]).toEqual([3, undefined, 4, 2]);
  });
});
