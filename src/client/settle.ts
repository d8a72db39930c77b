import type { Outbox } from './outbox.js';
import { settlement, type SendResult } from './send.js';
import type { TabMessage } from './tabs.js';
import type { DeadLetter, PendingAward } from './types.js';

/** What one batch settled: the acknowledged awards (as they were queued) and the refused ones, as dead letters. */
export interface Settled {
  sent: PendingAward[];
  dead: DeadLetter[];
}

/**
 * Applies one batch's results to the outbox, for a page and the service worker alike: refused awards become dead
 * letters (stored before they leave the queue, so they are never in neither), acknowledged and refused awards leave
 * the outbox. The other tabs hear of it once the deletes are in the store, so their reload() cannot bring the awards
 * back meanwhile; `told` resolves then.
 */
export async function settleBatch(
  outbox: Outbox,
  post: (message: TabMessage) => void,
  head: PendingAward[],
  results: SendResult[],
): Promise<Settled & { told: Promise<void> }> {
  const { ok, dead } = settlement(head, results);
  // A dead letter the store refused is only in this tab's memory, and its award stays in the store (the outbox is
  // degraded: it deletes nothing): the other tabs are not told, so one of them sends it again and stores the letter
  // if this tab goes away first (the model found it lost: a letter refused by a full disk, then the tab crashed).
  const stored = !dead.length || (await outbox.kill(dead));
  const settled = leave(outbox, ok, dead, true);
  const heard = stored ? dead : [];
  // Chained after the deletes leave() issued.
  const told = outbox.landed().then(() => {
    if (ok.length || heard.length) post({ t: 'done', ok, dead: heard });
  });
  return { ...settled, told };
}

/**
 * Another tab's (or the worker's) message, applied to this outbox: the one place a mirror follows the others. Returns
 * what the message settled here (for the page's events), or nothing for a message that settles nothing.
 */
export function applyTabMessage(outbox: Outbox, message: TabMessage): Settled | undefined {
  if (message.t === 'add') outbox.addRemote(message.recs);
  if (message.t !== 'done') return undefined;
  return leave(outbox, message.ok, message.dead, false);
}

/** Acknowledged (`ok`) and refused awards leave the outbox; `local`: this outbox deletes them from the store. */
function leave(outbox: Outbox, ok: string[], dead: DeadLetter[], local: boolean): Settled {
  const sent = outbox.remove(ok, local);
  outbox.acknowledged(ok);
  outbox.remove(
    dead.map((d) => d.idempotencyKey),
    local,
  );
  return { sent, dead };
}
