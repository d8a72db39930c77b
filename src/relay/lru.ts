/**
 * A bounded map that forgets a key nobody read for the longest first: second chance (CLOCK), an LRU without the
 * reorder per read. A Map's insertion order is the queue; a read only marks its entry. When full, the oldest entry
 * goes unless it was read since it was queued: then it is unmarked and queued again, and the next one is looked at.
 * Each pass costs one read made earlier, so every operation is O(1) on average, and a read writes nothing to the Map
 * (an exact LRU's delete and re-insert per read were 2-4 % of the relay's CPU per award: three reads per award, and
 * the Map's rehash after the deletes). The relay's bounded maps (rate-limit windows, verified tokens, idempotency
 * records) need nothing more; a cache library would weigh 3.6 MB in every install.
 */
export interface Lru<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  readonly size: number;
}

interface Entry<V> {
  value: V;
  /** Read since it was (re)queued. */
  read: boolean;
}

export function createLru<K, V>(max: number): Lru<K, V> {
  const entries = new Map<K, Entry<V>>();
  const evict = () => {
    for (;;) {
      const [key, entry] = entries.entries().next().value as [K, Entry<V>];
      entries.delete(key);
      if (!entry.read) return;
      entry.read = false;
      entries.set(key, entry);
    }
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entry.read = true;
      return entry.value;
    },
    set(key, value) {
      const entry = entries.get(key);
      if (entry !== undefined) {
        // A write is a use: the entry stays where it is, marked.
        entry.value = value;
        entry.read = true;
        return;
      }
      // A bound below 1 keeps nothing (as the exact LRU did). Room first: the new entry is never the one evicted.
      if (max < 1) return;
      if (entries.size >= max) evict();
      entries.set(key, { value, read: false });
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
