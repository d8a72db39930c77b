import type { PointsSummary } from '../protocol/responses.js';
import type { DeadLetter, PendingAward, SyncFailure } from './types.js';

/** What tabs of one storage name tell each other. */
export type TabMessage =
  /** Awards this tab committed to the outbox. */
  | { t: 'add'; recs: PendingAward[] }
  /** Awards this tab's flush settled: acknowledged (keys) and refused. */
  | { t: 'done'; ok: string[]; dead: DeadLetter[] }
  /** A read this tab accepted, and the acknowledged awards it absorbed. */
  | { t: 'points'; pair: string; summary: PointsSummary; absorbed: string[] }
  /** The service worker gave up a sync event (it sends this, never a tab). */
  | { t: 'sync-failed'; failure: SyncFailure }
  /** A dead letter was discarded: the others count theirs again. */
  | { t: 'dead' };

export interface Tabs {
  post(message: TabMessage): void;
  /** Tells the other tabs of awards this tab committed, in parts of TELL_AWARDS, each in a task of its own. */
  tell(awards: PendingAward[]): void;
  /** Who hears the other tabs' messages (one listener; the last one set). */
  listen(onMessage: (message: TabMessage) => void): void;
  close(): void;
}

/** Awards per 'add' message to the other tabs: cloning a thousand records for BroadcastChannel takes about 1 ms. */
const TELL_AWARDS = 1000;

/** BroadcastChannel between the tabs of one storage name; nothing to say when storage is memory (one tab only). */
export function createTabs(name: string, enabled: boolean, onMessage?: (message: TabMessage) => void): Tabs {
  if (!enabled || typeof BroadcastChannel === 'undefined') return { post() {}, tell() {}, listen() {}, close() {} };
  const channel = new BroadcastChannel(name);
  let open = true;
  let heard = onMessage;
  channel.onmessage = (event: MessageEvent<TabMessage>) => {
    if (open) heard?.(event.data);
  };
  const post = (message: TabMessage) => {
    if (open) channel.postMessage(message);
  };
  return {
    post,
    tell(awards) {
      // A large commit goes out in parts, each in a task of its own: 10,000 records cloned in one message held the
      // page for ~8 ms right after `persisted`, and its own work (a frame, a read of the store) waited behind it.
      const part = (from: number) => {
        post({ t: 'add', recs: awards.slice(from, from + TELL_AWARDS) });
        if (from + TELL_AWARDS < awards.length) setTimeout(part, 0, from + TELL_AWARDS);
      };
      part(0);
    },
    listen(fn) {
      heard = fn;
    },
    close() {
      open = false;
      channel.close();
    },
  };
}
