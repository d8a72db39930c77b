/** What the harness asks a page to award; `n` is the harness's own number for the award. */
export interface PlannedAward {
  n: number;
  points: number;
  eventName: string;
  description: string;
}

/** Messages a page sends the harness through the exposed `qpReport` binding. */
export type PageReport =
  | { t: 'ready' }
  /** Ours: the award is durably in the outbox (read back from IndexedDB) or already answered. Naive: in its queue. */
  | { t: 'accepted'; n: number; key?: string }
  /** Ours: the SDK's storage fell back to memory (storage:degraded); its awards then go out without the lock. */
  | { t: 'degraded'; reason: string; message: string }
  /** award() threw: nothing was queued. */
  | { t: 'refused'; n: number; message: string }
  /** Naive sender: an HTTP answer (the item is gone from its queue whatever the status). */
  | { t: 'answer'; n: number; status: number }
  /** Naive sender: a network error (the item went back to the head of its queue). */
  | { t: 'network'; n: number };

export interface PageParams {
  slot: string;
  storage: string;
  user: string;
  quest: string;
  token: string;
}

export function pageParams(): PageParams {
  const q = new URLSearchParams(location.search);
  const get = (name: string) => q.get(name) ?? '';
  return { slot: get('slot'), storage: get('storage'), user: get('user'), quest: get('quest'), token: get('token') };
}

export const report = (message: PageReport) => void (globalThis as any).qpReport?.(message).catch?.(() => {});
