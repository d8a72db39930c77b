import { paths } from '../protocol/paths.js';
import type { ClientParts } from './api.js';
import { pairOf } from './live.js';
import { toWire } from './send.js';
import type { TriggerHandlers } from './triggers.js';

/** A keepalive body must stay under 64 KiB: 20 awards of the largest allowed size fit. */
const PAGEHIDE_AWARDS = 20;

/** What the browser's signals start: a flush and a read when the network is back or the tab shows, a rescue on pagehide. */
export function triggerHandlers({ state, outbox, transport, reads, session }: ClientParts): TriggerHandlers {
  return {
    online() {
      session.setOnline(true);
      void session.flush(true);
      reads.refresh();
    },
    offline: () => session.setOnline(false),
    visible() {
      void session.flush(true);
      reads.refresh();
    },
    // Best effort: the page may be gone before any answer. The awards stay queued; the next load resends the same keys.
    pagehide() {
      void outbox.commit();
      outbox.rescue();
      // Sent before the start-up read, it would put this tab's new awards ahead of what earlier pages left.
      const head = state.loaded ? outbox.queued().slice(0, PAGEHIDE_AWARDS) : [];
      if (head.length && transport.batch) transport.beacon(paths.batch(), { awards: head.map(toWire) });
    },
    async poll() {
      if (outbox.degraded && (await outbox.recover())) session.recovered();
      if (globalThis.document?.visibilityState === 'hidden') return;
      void session.flush(false);
      reads.refresh();
    },
  };
}

/**
 * Start-up: the client's own pair from the cache (an offline start shows the last known total), what an earlier page
 * left in the outbox goes out first, and the pair is read. The outbox is read first in the store's queue of work, so
 * an award committed by now was committed after it.
 */
export function start({ state, outbox, own, notifier, reads, session }: ClientParts) {
  const startupRead = outbox.reload().then((awards) => {
    state.loaded = true;
    return awards;
  });
  void (async () => {
    if (own) await reads.restore(own);
    notifier.restored();
    for (const award of await startupRead) notifier.changed(pairOf(award));
    await session.recountDead();
    notifier.queueChanged();
    if (own) reads.refresh([own]);
    await session.flush(false);
  })();
}
