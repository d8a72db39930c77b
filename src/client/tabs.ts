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
  close(): void;
}

/** BroadcastChannel between the tabs of one storage name; nothing to say when storage is memory (one tab only). */
export function createTabs(name: string, enabled: boolean, onMessage: (message: TabMessage) => void): Tabs {
  if (!enabled || typeof BroadcastChannel === 'undefined') return { post() {}, close() {} };
  const channel = new BroadcastChannel(name);
  let open = true;
  channel.onmessage = (event: MessageEvent<TabMessage>) => {
    if (open) onMessage(event.data);
  };
  return {
    post(message) {
      if (open) channel.postMessage(message);
    },
    close() {
      open = false;
      channel.close();
    },
  };
}
