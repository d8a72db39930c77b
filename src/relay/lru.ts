/**
 * A bounded map that forgets the least recently used key first: a Map's insertion order is the recency order (a key
 * read or written moves to the end, the first key is the least recent). O(1) per operation. The relay's two bounded
 * maps (rate-limit windows, verified tokens) need nothing more; a cache library would weigh 3.6 MB in every install.
 */
export interface Lru<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  readonly size: number;
}

export function createLru<K, V>(max: number): Lru<K, V> {
  const entries = new Map<K, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > max) entries.delete(entries.keys().next().value as K);
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
