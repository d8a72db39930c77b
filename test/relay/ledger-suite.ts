// What every ledger store must do, run on each (memory in ledger.test.ts, Redis and Redis Cluster in
// ledger-redis.test.ts): ids in append order, pages with a cursor, every filter, and a time range.
import { describe, expect, it } from 'vitest';
import type { LedgerDraft, LedgerStore } from '../../src/relay/index.js';
import { compareIds } from '../../src/relay/economy/query.js';

export const draft = (at: number, extra: Partial<LedgerDraft> = {}): LedgerDraft => ({
  at,
  outcome: 'acknowledged',
  player: 'alice',
  questId: 'q1',
  serviceUserId: 'alice',
  eventName: 'coin',
  eventPoints: 5,
  ...extra,
});

/** The store's contract; `fresh` gives an empty store for each test. */
export function ledgerStoreSuite(name: string, fresh: () => Promise<LedgerStore> | LedgerStore) {
  describe(`${name}: the LedgerStore contract`, () => {
    it('assigns ids in append order and reads them back whole, page by page', async () => {
      const store = await fresh();
      const now = Date.now();
      const drafts = Array.from({ length: 25 }, (_, i) =>
        draft(now, {
          eventPoints: i,
          key: crypto.randomUUID(),
          requestId: `r${i}`,
          ...(i % 5 === 0 ? { outcome: 'refused', code: 'budget', rule: 'budgets[0]', status: 422 } : {}),
        }),
      );
      const ids = [...(await store.append(drafts.slice(0, 10))), ...(await store.append(drafts.slice(10)))];
      expect(ids).toHaveLength(25);
      for (let i = 1; i < ids.length; i++) expect(compareIds(ids[i - 1] as string, ids[i] as string)).toBeLessThan(0);
      const read: unknown[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await store.read({ limit: 10, ...(after ? { after } : {}) });
        read.push(...page.entries);
        if (!page.next) break;
        after = page.next;
      }
      expect(read).toEqual(drafts.map((d, i) => ({ ...d, id: ids[i] })));
    });

    it('filters by player, quest, event, outcome, key and time', async () => {
      const store = await fresh();
      const now = Date.now();
      const key = crypto.randomUUID();
      await store.append([
        draft(now - 10_000),
        draft(now, { player: 'bob', serviceUserId: 'bob' }),
        draft(now, { questId: 'q2', eventName: 'gem', key }),
        draft(now, { outcome: 'reversed', reverses: key, key: crypto.randomUUID() }),
      ]);
      const points = async (query: Parameters<LedgerStore['read']>[0]) =>
        (await store.read(query)).entries.map((e) => e.player + e.questId + e.outcome);
      expect(await points({ player: 'bob' })).toEqual(['bobq1acknowledged']);
      expect(await points({ questId: 'q2' })).toEqual(['aliceq2acknowledged']);
      expect(await points({ eventName: 'gem' })).toEqual(['aliceq2acknowledged']);
      expect(await points({ outcome: 'reversed' })).toEqual(['aliceq1reversed']);
      expect(await points({ key })).toEqual(['aliceq2acknowledged', 'aliceq1reversed']);
      expect(await points({ to: now - 5_000 })).toEqual(['aliceq1acknowledged']);
      expect(await points({ from: now - 5_000, player: 'alice' })).toEqual(['aliceq2acknowledged', 'aliceq1reversed']);
    });
  });
}
