// The admin API from your own back office, with fetch alone: export the ledger, reverse an award, ban a player.
// RELAY is the relay's URL, ADMIN_TOKEN a relay token with role "admin" (`quest-points token --sub ops --role admin`).
// test/relay/ledger-example.test.ts runs these against a relay and the emulator.

/** One line of GET /admin/ledger: an entry (the cursor line `{ next }` is read by exportLedger). */
export interface LedgerLine {
  id: string;
  at: number;
  outcome: string;
  player: string;
  questId: string;
  serviceUserId: string;
  eventName: string;
  eventPoints: number;
  key?: string;
  code?: string;
  rule?: string;
  reverses?: string;
}

// #region export
/** Every entry matching the filters, oldest first, page by page (the last line of a page is `{ next }` when there is more). */
export async function* exportLedger(relay: string, adminToken: string, filters: Record<string, string>) {
  let after: string | undefined;
  do {
    const query = new URLSearchParams({ ...filters, limit: '1000', ...(after ? { after } : {}) });
    const response = await fetch(`${relay}/admin/ledger?${query}`, { headers: { authorization: `Bearer ${adminToken}` } });
    if (!response.ok) throw new Error(`ledger: ${response.status} ${await response.text()}`);
    after = undefined;
    for (const line of (await response.text()).split('\n').filter(Boolean)) {
      const parsed = JSON.parse(line) as LedgerLine & { next?: string };
      if (parsed.next !== undefined) after = parsed.next;
      else yield parsed;
    }
  } while (after);
}
// #endregion export

// #region reverse
/** Reverse an acknowledged award by its key (as the ledger shows it): sent twice, it is applied once. */
export async function reverse(relay: string, adminToken: string, questId: string, key: string) {
  const response = await fetch(`${relay}/admin/reversals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ questId, key }),
  });
  // 200 { success, key, reverses, eventPoints, already? }; 404 not in the ledger; 503 send it again
  return (await response.json()) as { success: boolean; key?: string; eventPoints?: number; already?: true; message?: string };
}
// #endregion reverse

// #region audit
/** Reconcile a player's day: what the service applied, by the relay's ledger. */
export async function appliedPoints(relay: string, adminToken: string, player: string, questId: string, from: Date, to: Date) {
  let total = 0;
  const filters = { player, quest: questId, from: from.toISOString(), to: to.toISOString() };
  for await (const entry of exportLedger(relay, adminToken, filters)) {
    if (entry.outcome === 'acknowledged' || entry.outcome === 'reversed') total += entry.eventPoints;
  }
  return total;
}
// #endregion audit
