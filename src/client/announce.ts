import type { QuestPointsEmitter } from './events.js';
import type { Notifier } from './notify.js';
import type { Outbox } from './outbox.js';
import { pairOf } from './pair.js';
import type { Reads } from './reads.js';
import type { SendResult } from './send.js';
import { applyTabMessage, settleBatch, type Settled } from './settle.js';
import type { ClientStore } from './state.js';
import type { TabMessage, Tabs } from './tabs.js';
import type { AwardOutcome, PendingAward } from './types.js';

/** Known stored: an award another tab (or an earlier page) committed to the shared outbox. */
const STORED = Promise.resolve(true);

export interface AnnounceDeps {
  store: ClientStore;
  events: QuestPointsEmitter;
  outbox: Outbox;
  notifier: Notifier;
  reads: Reads;
  tabs: Tabs;
}

/**
 * Settlement announcements: what an award's leaving the outbox means for the page, whoever settled it (this tab's
 * drain, another tab's or the worker's message, or an award gone from the store unheard). Owns each award's `settled`
 * resolver: it resolves once, here, and nowhere else.
 */
export function createAnnouncer({ store, events, outbox, notifier, reads, tabs }: AnnounceDeps) {
  const { changed } = notifier;
  /**
   * Each of this tab's queued awards, until it settles: its `settled` resolver, and its `persisted`, which every
   * award:* event carries (the HUD says "kept until you close this page" for an award only in memory).
   */
  const settling = new Map<string, { resolve(outcome: AwardOutcome): void; persisted: Promise<boolean> }>();
  /** An award's `persisted`; one this tab did not make came from the store (another tab's, an earlier page's): true. */
  const persisted = (idempotencyKey: string) => settling.get(idempotencyKey)?.persisted ?? STORED;
  /** Pairs this tab's drain acknowledged awards of: read once when the drain ends. */
  const acked = new Set<string>();
  /** Dead-letter counts asked for: only the latest applies (an earlier read may predate a later letter). */
  let counts = 0;

  /** The award settled: its `settled` resolves, here and once (it leaves); returns its `persisted` for the event. */
  function resolve(outcome: AwardOutcome): Promise<boolean> {
    const was = persisted(outcome.idempotencyKey);
    settling.get(outcome.idempotencyKey)?.resolve(outcome);
    settling.delete(outcome.idempotencyKey);
    return was;
  }

  /** The dead-letter count, from the store: at start-up, after letters were stored (here or elsewhere), after a discard. */
  async function recountDead() {
    const mine = ++counts;
    const letters = await outbox.deadLetters().catch(() => undefined);
    // A store that cannot be read leaves the count as it was (the outbox reported the failure as degraded storage).
    if (letters && mine === counts) store.dispatch({ type: 'dead-counted', count: letters.length });
  }

  /**
   * What left the outbox, told: `settled` promises, events, views. `local`: this tab's drain (it reads after).
   * An award that had vanished from the store before the word came (outbox.isLate) may be in a read accepted since:
   * it is not counted as sent (that would count it twice); its pair is read again instead.
   */
  function announce({ sent, dead }: Settled, local: boolean) {
    reads.acknowledged(
      sent.filter((a) => !outbox.isLate(a)),
      local,
    );
    reads.refresh(sent.filter(outbox.isLate).map(pairOf));
    for (const award of sent) {
      const pair = pairOf(award);
      if (local) acked.add(pair);
      const { idempotencyKey } = award;
      events.emit('award:sent', { award, persisted: resolve({ outcome: 'sent', status: 'sent', idempotencyKey }) });
      changed(pair);
    }
    // Counted at once, and again from the store (a count read in flight may predate these letters).
    if (dead.length) {
      store.dispatch({ type: 'dead-added', count: dead.length });
      void recountDead();
    }
    for (const deadLetter of dead) {
      const { idempotencyKey, status: httpStatus, message } = deadLetter;
      const was = resolve({ outcome: 'rejected', status: 'rejected', idempotencyKey, deadLetter, httpStatus, message });
      events.emit('award:rejected', { deadLetter, persisted: was });
      changed(pairOf(deadLetter));
    }
    notifier.queueChanged();
  }

  return {
    /** award()'s `settled` promise for this key; its `persisted` is kept for the award:* events. */
    settled(idempotencyKey: string, persisted: Promise<boolean>) {
      return new Promise<AwardOutcome>((resolve) => settling.set(idempotencyKey, { resolve, persisted }));
    },
    /** The award's `persisted` (an award this tab did not make came from the store: true). */
    persisted,
    /** One batch's results from this tab's drain: into the outbox, then told. */
    async settle(head: PendingAward[], results: SendResult[]) {
      announce(await settleBatch(outbox, tabs.post, head, results), true);
    },
    /** The pairs this tab's drain acknowledged awards of since the last call. */
    takeAcked(): string[] {
      const pairs = [...acked];
      acked.clear();
      return pairs;
    },
    /**
     * Awards gone from the store whose settling tab never told (it died between its deletes and its message): each
     * was acknowledged, or refused and dead-lettered first. The dead letters say which.
     */
    async unheard() {
      const gone = outbox.unheard();
      if (!gone.length) return;
      const letters = await outbox.deadLetters().catch(() => []);
      const dead = new Map(letters.map((d) => [d.idempotencyKey, d]));
      announce({ sent: gone.filter((a) => !dead.has(a.idempotencyKey)), dead: gone.flatMap((a) => dead.get(a.idempotencyKey) ?? []) }, false);
    },
    /** Another tab's (or the worker's) message. */
    heard(message: TabMessage) {
      if (store.get().closed) return;
      const settled = applyTabMessage(outbox, message);
      if (settled) announce(settled, false);
      if (message.t === 'add') {
        for (const award of message.recs) changed(pairOf(award));
        notifier.queueChanged();
      }
      if (message.t === 'points') reads.adopt(message.pair, message.summary, message.absorbed);
      if (message.t === 'dead') void recountDead();
      if (message.t === 'sync-failed') events.emit('sync:failed', message.failure);
    },
    recountDead,
    /** close(): every award still waiting resolves as closed (they stay queued for the next client). */
    close() {
      for (const idempotencyKey of [...settling.keys()]) void resolve({ outcome: 'closed', status: 'closed', idempotencyKey });
    },
  };
}

export type Announcer = ReturnType<typeof createAnnouncer>;
