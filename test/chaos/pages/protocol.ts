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

/** A dead-lettered award as a page hands it to the harness. */
export interface DeadLetterSummary {
  key: string;
  description: string;
  status: number;
  message?: string;
}

/** What each page puts on `globalThis.chaos` for the harness to call through page.evaluate. */
export interface ChaosPage {
  issue(awards: PlannedAward[]): void;
  flush(): Promise<void>;
  pending(): Promise<number>;
  /** What is still queued: idempotency keys (ours) or descriptions (naive). */
  stored(): Promise<string[]>;
  deadLetters(): Promise<DeadLetterSummary[]>;
}

/** "Our" page besides: the page's service worker and its Background Sync tags. */
export interface OursChaosPage extends ChaosPage {
  syncTags(): Promise<string[]>;
  registerWorker(url: string): Promise<void>;
}

/**
 * The page's global as the harness and the pages see it. Code run through page.evaluate is sent as source text, so it
 * cannot import a helper: it casts `globalThis as ChaosGlobal` itself (a type only, gone from the sent text).
 */
export type ChaosGlobal<P extends ChaosPage = ChaosPage> = typeof globalThis & {
  chaos: P;
  /** Exposed by the harness (context.exposeBinding); absent when a page is opened without it. */
  qpReport?: (message: PageReport) => Promise<void>;
};

export const report = (message: PageReport) => void (globalThis as ChaosGlobal).qpReport?.(message).catch(() => {});
