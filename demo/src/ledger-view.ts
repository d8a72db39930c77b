// The designer console's ledger, live: every decision of the dev relay (forwarded, acknowledged, refused and by which
// rule, reversed, banned) read from GET /api/admin/ledger with the designer's admin token, newest on top. It follows
// the ledger with the cursor the relay gives (`after`: the last entry's id), once a second while the switch is on.
import { byId, devToken, formatPoints } from './session.js';

interface Entry {
  id: string;
  at: number;
  outcome: string;
  player: string;
  questId: string;
  eventName: string;
  eventPoints: number;
  code?: string;
  rule?: string;
}

/** The relay has no ledger route: following it is pointless until the page is reloaded or the switch turned on. */
class NoLedger extends Error {}

const KEEP = 200;
const POLL_MS = 1000;

function entryRow(entry: Entry): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const why = [entry.code, entry.rule].filter(Boolean).join(' · ');
  const cells = [
    new Date(entry.at).toLocaleTimeString('en-GB'),
    entry.player,
    entry.questId,
    entry.eventName,
    formatPoints(entry.eventPoints),
    entry.outcome,
    why,
  ];
  for (const text of cells) tr.append(Object.assign(document.createElement('td'), { textContent: text }));
  Object.assign(tr.dataset, { outcome: entry.outcome, ...(entry.code ? { code: entry.code } : {}) });
  tr.className = entry.outcome === 'refused' ? 'refused' : '';
  return tr;
}

/** One page after `after`: the entries and the last id seen (the NDJSON's final `{"next"}` line is a cursor, not an entry). */
async function page(token: string, after: string | undefined): Promise<{ entries: Entry[]; more: boolean }> {
  // A first read starts a minute back: the console shows what happens now, not the whole retention.
  const query = new URLSearchParams(after ? { after, limit: '500' } : { from: String(Date.now() - 60_000), limit: '500' });
  const response = await fetch(`/api/admin/ledger?${query}`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status === 404) throw new NoLedger('this relay keeps no ledger (GET /admin/ledger answered 404)');
  if (!response.ok) throw new Error(`GET /admin/ledger answered ${response.status}`);
  const lines = (await response.text()).split('\n').filter((line) => line.trim());
  const parsed = lines.map((line) => JSON.parse(line) as Partial<Entry> & { next?: string });
  return {
    entries: parsed.filter((line): line is Entry => typeof line.id === 'string' && typeof line.outcome === 'string'),
    more: parsed.some((l) => l.next),
  };
}

/** Follow the ledger into #ledger-rows while #ledger-live is checked. */
export function setupLedgerView(): void {
  const rows = byId<HTMLTableSectionElement>('ledger-rows');
  const live = byId<HTMLInputElement>('ledger-live');
  const status = byId('ledger-status');
  const getToken = devToken({ sub: 'designer', role: 'admin' });
  let cursor: string | undefined;
  let seen = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;

  const tick = async () => {
    timer = undefined;
    busy = true;
    try {
      const token = await getToken();
      for (let more = true; more; ) {
        const next = await page(token, cursor);
        for (const entry of next.entries) rows.prepend(entryRow(entry));
        while (rows.rows.length > KEEP) rows.lastElementChild?.remove();
        if (next.entries.length) cursor = next.entries[next.entries.length - 1]?.id;
        seen += next.entries.length;
        more = next.more && next.entries.length > 0;
      }
      status.textContent = `${seen} entries since the page opened${live.checked ? ', following' : ''}`;
      status.className = 'result ok';
      status.dataset.seen = String(seen);
    } catch (error) {
      status.textContent = error instanceof Error ? error.message : String(error);
      status.className = 'result bad';
      // A relay without a ledger (or an old dev server): stop asking; the switch tries again.
      if (error instanceof NoLedger) live.checked = false;
    }
    busy = false;
    if (live.checked) timer = setTimeout(() => void tick(), POLL_MS);
  };
  live.addEventListener('change', () => {
    if (live.checked && !timer && !busy) void tick();
  });
  if (live.checked) void tick();
}
