import { paths } from '../protocol/paths.js';
import type { Announcer } from './announce.js';
import type { Flush } from './flush.js';
import type { Notifier } from './notify.js';
import type { Outbox } from './outbox.js';
import { pairOf } from './pair.js';
import type { Reads } from './reads.js';
import { toWire } from './send.js';
import type { ClientStore } from './state.js';
import type { Transport } from './transport.js';
import { createTriggers } from './triggers.js';

export interface StartDeps {
  store: ClientStore;
  outbox: Outbox;
  notifier: Notifier;
  reads: Reads;
  announcer: Announcer;
  flush: Flush;
  transport: Transport;
  /** The client's own pair, read from start-up on. */
  own: string | undefined;
  /** The client's player (its serviceUserId option): the pagehide beacon carries only its awards (players.ts). */
  player?: string;
  pollIntervalMs: number;
  /** IndexedDB works again after a degraded spell (the poll's recovery). */
  recovered(): void;
}

/** A keepalive body must stay under 64 KiB: 20 awards of the largest allowed size fit. */
const PAGEHIDE_AWARDS = 20;

/**
 * Start-up and the browser's signals: what an earlier page left goes out first, the own pair from the cache then a
 * read, and each signal (online, offline, visible, pagehide, the poll) turned into the work it starts. Returns stop().
 */
export function startClient(deps: StartDeps): () => void {
  const { store, outbox, notifier, reads, announcer, flush, transport, own } = deps;
  const { changed } = notifier;

  const triggers = createTriggers(
    {
      online() {
        store.dispatch({ type: 'connection', online: true });
        void flush.flush(true);
        reads.refresh();
      },
      offline: () => store.dispatch({ type: 'connection', online: false }),
      visible() {
        void flush.flush(true);
        reads.refresh();
      },
      // Best effort: the page may be gone before any answer. The awards stay queued; the next load resends the same keys.
      pagehide() {
        void outbox.commit();
        outbox.rescue();
        // Sent before the start-up read, it would put this tab's new awards ahead of what earlier pages left.
        const queued = store.get().loaded ? outbox.queued() : [];
        const head = (deps.player === undefined ? queued : queued.filter((a) => a.serviceUserId === deps.player)).slice(0, PAGEHIDE_AWARDS);
        if (head.length && transport.batch) transport.beacon(paths.batch(), { awards: head.map(toWire) });
      },
      async poll() {
        if (outbox.degraded && (await outbox.recover())) deps.recovered();
        if (!triggers.visible()) return;
        void flush.flush(false);
        reads.refresh();
      },
    },
    deps.pollIntervalMs,
  );

  // Start-up: the client's own pair from the cache (an offline start shows the last known total), what an earlier page
  // left in the outbox goes out first, and the pair is read. The outbox is read first in the store's queue of work,
  // so an award committed by now was committed after it.
  const startupRead = outbox.reload().then((awards) => {
    store.dispatch({ type: 'loaded' });
    return awards;
  });
  // The dead letters are counted alongside, not after the outbox read: on a first visit each read creates its
  // database, and a creation still running once the outbox is read competed in IndexedDB with the first awards'
  // commit (a burst right after pending() took ~1.1x longer). Only the latest count applies, so the order is free.
  const startupCount = announcer.recountDead();
  void (async () => {
    if (own) await reads.restore(own);
    notifier.restored();
    for (const award of await startupRead) changed(pairOf(award));
    await startupCount;
    notifier.queueChanged();
    if (own) reads.refresh([own]);
    await flush.flush(false);
  })();

  return () => triggers.dispose();
}
