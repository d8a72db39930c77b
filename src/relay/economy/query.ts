// What every ledger store shares: the shape of an entry's id (its cursor), how ids compare, and what a query matches.
// A store reads in id order and filters here, so the memory, Redis and Durable Object stores answer a query alike.
import type { LedgerEntry, LedgerQuery } from './contract.js';

/** 30 days: what the ledger keeps by default (RelayOptions `ledger.retentionMs`), as long as the idempotency record. */
export const DEFAULT_LEDGER_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** A page holds at most this many entries (GET /admin/ledger's `limit` is bounded by it). */
export const MAX_LEDGER_PAGE = 1000;
/** The default page size. */
export const DEFAULT_LEDGER_PAGE = 100;

/** An entry id: `<ms>-<seq>`, the shape of a Redis stream id (every store assigns this shape). */
export const LEDGER_ID = /^\d{1,15}-\d{1,15}$/;

/** [ms, seq] of an id (`<ms>` alone reads as `<ms>-0`). */
export function idParts(id: string): [number, number] {
  const at = id.indexOf('-');
  return at < 0 ? [Number(id), 0] : [Number(id.slice(0, at)), Number(id.slice(at + 1))];
}

/** Negative when a is before b, 0 when equal, positive after. */
export function compareIds(a: string, b: string): number {
  const [am, as] = idParts(a);
  const [bm, bs] = idParts(b);
  return am - bm || as - bs;
}

/** Does the entry match every filter of the query (the cursor and the limit are the reader's)? */
export function matches(entry: LedgerEntry, query: LedgerQuery): boolean {
  return (
    (query.player === undefined || entry.player === query.player) &&
    (query.questId === undefined || entry.questId === query.questId) &&
    (query.eventName === undefined || entry.eventName === query.eventName) &&
    (query.outcome === undefined || entry.outcome === query.outcome) &&
    (query.key === undefined || entry.key === query.key || entry.reverses === query.key) &&
    (query.from === undefined || entry.at >= query.from) &&
    (query.to === undefined || entry.at < query.to)
  );
}

/** The page size a store serves: the query's limit, bounded by MAX_LEDGER_PAGE. */
export const pageSize = (query: LedgerQuery): number => Math.max(1, Math.min(MAX_LEDGER_PAGE, Math.floor(query.limit ?? DEFAULT_LEDGER_PAGE)));

/**
 * An entry is appended within this of its decision (`at`): ids are append times, so a read by time range stops at
 * the first id this far past `to`.
 */
export const APPEND_LAG_MS = 60_000;

/** Is this id past every entry the query's `to` can match (a reader in id order stops there)? */
export const pastEnd = (id: string, query: LedgerQuery): boolean => query.to !== undefined && idParts(id)[0] >= query.to + APPEND_LAG_MS;
