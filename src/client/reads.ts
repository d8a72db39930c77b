import type { PointsSummary } from '../protocol/responses.js';
import type { Base, Live } from './live.js';
import type { Lease } from './lock.js';
import { pairOf } from './pair.js';
import type { KV } from './store.js';
import type { TabMessage } from './tabs.js';
import type { Tracked } from './tracked.js';
import type { PendingAward } from './types.js';

/** The cache's records: a pair's accepted base, and each acknowledged award not yet absorbed by a read. */
type Cached = { base: Base } | { sent: PendingAward };
/** Everything the cache store holds: those records, identify answers (strings) and the flush lease. */
export type CacheRecord = Cached | Lease | string;
const baseKey = (pair: string) => `points:${pair}`;
const sentKey = (idempotencyKey: string) => `sent:${idempotencyKey}`;

export interface ReadsDeps {
  live: Live;
  cache: KV<CacheRecord>;
  /** GET the pair's summary from the relay; throws when there is no answer or a refusal. */
  fetch(pair: string): Promise<PointsSummary>;
  changed(pair: string): void;
  post(message: TabMessage): void;
  /** The pairs kept live (the own pair and the watched ones): the only ones read in the background. */
  tracked: Tracked;
}

/**
 * Reads of pairs: the tracked ones (the client's own pair, watched pairs) in the background, any pair when asked
 * (fetchPoints). One read per pair at a time, and every read asked for meanwhile coalesced into one more after it (the history endpoint returns the
 * whole history, so reads are not free). What a read accepted, and each acknowledgement, is cached in IndexedDB so a
 * later page, offline, starts from the last known total.
 */
export function createReads(deps: ReadsDeps) {
  const { live, cache, tracked } = deps;
  const running = new Map<string, Promise<void>>();
  const next = new Map<string, Promise<void>>();
  const quietly = (work: Promise<unknown>) => void work.catch(() => {});

  function persist(pair: string, absorbed: string[]) {
    const base = live.base(pair);
    if (base) quietly(cache.setMany([[baseKey(pair), { base }]]));
    if (absorbed.length) quietly(cache.delMany(absorbed.map(sentKey)));
  }

  async function readOnce(pair: string): Promise<void> {
    const ticket = live.beginRead(pair);
    let summary: PointsSummary;
    try {
      summary = await deps.fetch(pair);
    } catch (error) {
      live.failRead(pair);
      deps.changed(pair);
      throw error;
    }
    const absorbed = live.endRead(ticket, summary);
    if (absorbed) {
      persist(pair, absorbed);
      deps.post({ t: 'points', pair, summary, absorbed });
    }
    deps.changed(pair);
  }

  /** A read of this pair; during one, the next read waits for it and serves every caller that asked meanwhile. */
  function read(pair: string): Promise<void> {
    const current = running.get(pair);
    if (current !== undefined) {
      let queued = next.get(pair);
      if (!queued) {
        queued = current
          .catch(() => {})
          .then(() => {
            next.delete(pair);
            return read(pair);
          });
        next.set(pair, queued);
      }
      return queued;
    }
    const started = readOnce(pair).finally(() => running.delete(pair));
    running.set(pair, started);
    return started;
  }

  return {
    read,
    /** Background reads (start-up, `online`, visible, poll, after a drain): failures only mark the view stale. */
    refresh(pairs: Iterable<string> = tracked.pairs()) {
      for (const pair of [...pairs]) if (tracked.has(pair)) quietly(read(pair));
    },
    /** What an earlier page cached for this pair: its base (stale until read) and its unabsorbed acknowledgements. */
    async restore(pair: string) {
      // The base first: a tab that accepts a read writes its base, then deletes the acknowledgements it absorbed, in
      // that order and at once; read the other way round, an acknowledgement read before that write and the base read
      // after it were counted twice.
      const stored = await cache.get(baseKey(pair)).catch(() => undefined);
      const records = await cache.all().catch((): CacheRecord[] => []);
      // The cache also holds identify answers (strings) and the flush lease.
      const sent = records.flatMap((r) => (typeof r === 'object' && r !== null && 'sent' in r && pairOf(r.sent) === pair ? [r.sent] : []));
      live.restore(pair, typeof stored === 'object' && 'base' in stored ? stored.base : undefined, sent);
      deps.changed(pair);
    },
    /** Acknowledged awards of live pairs (tracked, or read) move pending -> sent at once; `local`: this tab caches them. */
    acknowledged(awards: PendingAward[], local: boolean) {
      const kept = awards.filter((award) => tracked.has(pairOf(award)) || live.base(pairOf(award)));
      for (const award of kept) live.acknowledged(award);
      if (local && kept.length) quietly(cache.setMany(kept.map((award): [string, Cached] => [sentKey(award.idempotencyKey), { sent: award }])));
    },
    /** Another tab's accepted read. */
    adopt(pair: string, summary: PointsSummary, absorbed: string[]) {
      if (!tracked.has(pair)) return;
      if (live.adopt(pair, summary, absorbed)) deps.changed(pair);
    },
  };
}

export type Reads = ReturnType<typeof createReads>;
