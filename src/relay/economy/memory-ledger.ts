import { ConfigError } from '../../kit/errors.js';
import type { LedgerDraft, LedgerEntry, LedgerStore } from './contract.js';
import { compareIds, DEFAULT_LEDGER_RETENTION_MS, matches, pageSize, pastEnd } from './query.js';

/** Options of createMemoryLedgerStore. */
export interface MemoryLedgerOptions {
  /** The most entries kept: the oldest go first; default 100,000 (about 50 MB of this isolate's heap). */
  maxEntries?: number;
  /** Entries older than this (ms) are dropped on append; default DEFAULT_LEDGER_RETENTION_MS (30 days). */
  retentionMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** The default cap of the memory ledger. */
export const DEFAULT_MEMORY_LEDGER_ENTRIES = 100_000;

/** A store scans at most this many entries per read (a page of a narrow filter may come back short, with a cursor). */
const SCAN_PER_READ = 10_000;

/**
 * The ledger in this isolate's memory, bounded by a count and the retention: one relay instance, or tests. Lost on
 * restart and not shared: with several instances use the Redis store (createRedisCounterStore(...).ledger).
 */
export function createMemoryLedgerStore(options: MemoryLedgerOptions = {}): LedgerStore {
  const maxEntries = options.maxEntries ?? DEFAULT_MEMORY_LEDGER_ENTRIES;
  const retentionMs = options.retentionMs ?? DEFAULT_LEDGER_RETENTION_MS;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new ConfigError('maxEntries', 'invalid', `maxEntries must be a positive integer, got ${maxEntries}`);
  if (!(retentionMs > 0)) throw new ConfigError('retentionMs', 'invalid', `retentionMs must be a positive number of ms, got ${retentionMs}`);
  const now = options.now ?? Date.now;
  // Oldest first; `head` is the first live index (dropping from the front is a pointer move, compacted now and then).
  let entries: LedgerEntry[] = [];
  let head = 0;
  let lastMs = -1;
  let seq = 0;

  const drop = (count: number) => {
    head += count;
    if (head > 1024 && head * 2 > entries.length) {
      entries = entries.slice(head);
      head = 0;
    }
  };
  const trim = (olderThan: number) => {
    let count = 0;
    while (head + count < entries.length && (entries[head + count] as LedgerEntry).at < olderThan) count++;
    drop(count);
  };

  return {
    async append(drafts) {
      const ids: string[] = [];
      for (const draft of drafts) {
        // Ids in append order, `<ms>-<seq>` as Redis assigns them: the clock going back never reorders them.
        const ms = Math.max(now(), lastMs);
        seq = ms === lastMs ? seq + 1 : 0;
        lastMs = ms;
        const id = `${ms}-${seq}`;
        entries.push({ ...(draft as LedgerDraft), id });
        ids.push(id);
      }
      trim(now() - retentionMs);
      const over = entries.length - head - maxEntries;
      if (over > 0) drop(over);
      return ids;
    },
    async read(query) {
      const limit = pageSize(query);
      const found: LedgerEntry[] = [];
      let at = head;
      if (query.after !== undefined) {
        // Ids are ascending: a binary search for the first one after the cursor.
        let low = head;
        let high = entries.length;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (compareIds((entries[mid] as LedgerEntry).id, query.after) <= 0) low = mid + 1;
          else high = mid;
        }
        at = low;
      }
      const end = Math.min(entries.length, at + SCAN_PER_READ);
      for (; at < end && found.length < limit; at++) {
        const entry = entries[at] as LedgerEntry;
        if (pastEnd(entry.id, query)) return { entries: found };
        if (matches(entry, query)) found.push(entry);
      }
      if (at >= entries.length) return { entries: found };
      const last = entries[at - 1];
      return last ? { entries: found, next: last.id } : { entries: found };
    },
    async trim(olderThan) {
      trim(olderThan);
    },
  };
}
