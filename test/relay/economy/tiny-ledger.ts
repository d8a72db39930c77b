// A tiny in-test ledger (append, read with after / from / limit, subscribe): what the webhook deliverer reads, until
// the relay's own ledger stores are at hand.
import type { LedgerDraft, LedgerEntry, LedgerQuery } from '../../../src/relay/economy/contract.js';

export function tinyLedger() {
  const entries: LedgerEntry[] = [];
  const listeners = new Set<(entries: readonly LedgerEntry[]) => void>();
  let seq = 0;
  return {
    entries,
    async append(drafts: readonly LedgerDraft[]) {
      const added = drafts.map((draft) => ({ ...draft, id: `${draft.at}-${seq++}` }));
      entries.push(...added);
      for (const listener of listeners) listener(added);
      return added.map((e) => e.id);
    },
    async read(query: LedgerQuery) {
      const start = query.after === undefined ? 0 : entries.findIndex((e) => e.id === query.after) + 1;
      const matching = entries.slice(start).filter((e) => query.from === undefined || e.at >= query.from);
      const limit = query.limit ?? 100;
      const page = matching.slice(0, limit);
      return matching.length > limit ? { entries: page, next: page.at(-1)?.id } : { entries: page };
    },
    subscribe(listener: (entries: readonly LedgerEntry[]) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

let n = 0;
/** An acknowledged award's draft (a fresh key each), or with `over` fields. */
export function award(over: Partial<LedgerDraft> = {}): LedgerDraft {
  n += 1;
  return {
    at: Date.now(),
    outcome: 'acknowledged',
    player: `player-${n % 3}`,
    questId: 'summer',
    serviceUserId: `p${n % 3}@example.com`,
    eventName: 'coin',
    eventPoints: 5,
    key: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    status: 200,
    ...over,
  };
}
