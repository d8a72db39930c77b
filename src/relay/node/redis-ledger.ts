// The ledger in a Redis stream, `qp:ledger` (one key: on a cluster, one slot of its own). Each append is one script,
// one round trip for every decision of a tick: XADD each entry (the stream assigns `<ms>-<seq>` ids in order), then
// trim by age (MINID) and by count (MAXLEN), both approximate (`~`: whole macro-nodes, the cheap way). A read is
// XRANGE from the cursor, filtered here (query.ts), a bounded number of entries scanned per page.
import { ConfigError } from '../../kit/errors.js';
import type { LedgerDraft, LedgerEntry, LedgerStore } from '../economy/contract.js';
import { APPEND_LAG_MS, compareIds, DEFAULT_LEDGER_RETENTION_MS, matches, pageSize, pastEnd } from '../economy/query.js';
import type { RedisConnection } from './redis-connect.js';

type ScriptParser = { pushKey(key: string): void; push(value: string): void };

/** KEYS[1] the stream; ARGV[1] the oldest id kept (ms), ARGV[2] the most entries kept, ARGV[3..] the entries. */
export const LEDGER_APPEND_SCRIPT = {
  NUMBER_OF_KEYS: 1,
  SCRIPT: `local ids = {}
for i = 3, #ARGV do
  ids[#ids + 1] = redis.call('XADD', KEYS[1], '*', 'e', ARGV[i])
end
redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[1])
redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[2])
return ids`,
  parseCommand(parser: ScriptParser, key: string, minId: number, maxLen: number, entries: readonly string[]) {
    parser.pushKey(key);
    parser.push(String(minId));
    parser.push(String(maxLen));
    for (const entry of entries) parser.push(entry);
  },
  transformReply: undefined as unknown as () => string[],
};

/** The ledger's stream key (before the store's prefix). */
export const LEDGER_STREAM_KEY = 'qp:ledger';
/**
 * The most entries the stream keeps, whatever their age: 2 million, about 600 MB of Redis memory at the ~300 bytes an
 * award's entry takes (docs/economy.md). A busy game raises it (or lowers the retention).
 */
export const DEFAULT_REDIS_LEDGER_ENTRIES = 2_000_000;
/** Entries scanned per XRANGE, and XRANGEs per read: a narrow filter's page may come back short, with a cursor. */
const SCAN_COUNT = 1000;
const SCANS_PER_READ = 10;

/** Options of the Redis ledger (RedisCounterStoreOptions `ledger`). */
export interface RedisLedgerOptions {
  /** Entries older than this are trimmed on each append; default DEFAULT_LEDGER_RETENTION_MS (30 days). */
  retentionMs?: number;
  /** The most entries kept (approximately); default DEFAULT_REDIS_LEDGER_ENTRIES. */
  maxEntries?: number;
}

/** The options with their defaults, checked before any connection is opened (a ConfigError names the bad one). */
export function resolveRedisLedgerOptions(options: RedisLedgerOptions = {}): Required<RedisLedgerOptions> {
  const retentionMs = options.retentionMs ?? DEFAULT_LEDGER_RETENTION_MS;
  const maxEntries = options.maxEntries ?? DEFAULT_REDIS_LEDGER_ENTRIES;
  if (!(retentionMs > 0))
    throw new ConfigError('ledger.retentionMs', 'invalid', `ledger.retentionMs must be a positive number of ms, got ${retentionMs}`);
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new ConfigError('ledger.maxEntries', 'invalid', `ledger.maxEntries must be a positive integer, got ${maxEntries}`);
  return { retentionMs, maxEntries };
}

/** The ledger store in a Redis stream on the relay's connection. */
export function createRedisLedgerStore(redis: RedisConnection, prefix: string, options: Required<RedisLedgerOptions>): LedgerStore {
  const { retentionMs, maxEntries } = options;
  const key = prefix + LEDGER_STREAM_KEY;
  return {
    async append(drafts: readonly LedgerDraft[]) {
      if (!drafts.length) return [];
      await redis.connected();
      const ids = await redis.script<string[]>('ledgerAppend', [
        key,
        Date.now() - retentionMs,
        maxEntries,
        drafts.map((draft) => JSON.stringify(draft)),
      ]);
      return ids.map(String);
    },
    async read(query) {
      await redis.connected();
      const limit = pageSize(query);
      const found: LedgerEntry[] = [];
      // Entries decided at `from` or later were appended then or later: the range starts there, or after the cursor.
      let start = query.after === undefined ? '-' : `(${query.after}`;
      if (query.from !== undefined && (query.after === undefined || compareIds(`${query.from}-0`, query.after) > 0)) start = `${query.from}-0`;
      const end = query.to === undefined ? '+' : String(query.to + APPEND_LAG_MS);
      for (let scans = 0; scans < SCANS_PER_READ; scans++) {
        const page = (await redis.send(key, ['XRANGE', key, start, end, 'COUNT', String(SCAN_COUNT)])) as [string, string[]][];
        for (const [id, fields] of page) {
          const entry = entryOf(id, fields);
          if (entry && matches(entry, query)) found.push(entry);
          if (found.length >= limit) return { entries: found, next: id };
        }
        const last = page.at(-1)?.[0];
        if (page.length < SCAN_COUNT || last === undefined || pastEnd(last, query)) return { entries: found };
        start = `(${last}`;
      }
      // Scanned enough for one page: the reader goes on from here.
      return { entries: found, next: start.slice(1) };
    },
  };
}

/** An entry from its stream fields (`e`: the draft's JSON); undefined for anything else. */
function entryOf(id: string, fields: readonly string[]): LedgerEntry | undefined {
  const at = fields.indexOf('e');
  const text = at >= 0 ? fields[at + 1] : undefined;
  if (text === undefined) return undefined;
  try {
    return { ...(JSON.parse(text) as LedgerDraft), id };
  } catch {
    return undefined;
  }
}
