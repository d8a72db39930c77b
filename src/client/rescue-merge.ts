import type { KV } from './store.js';
import type { DeadLetter, PendingAward } from './types.js';

/**
 * Start-up, when earlier pages left rescues (rescue.ts): their awards join the store, skipping those known there
 * (queued or dead-lettered); unreadable rescues are skipped. Loaded only when a rescue was found: most pages have none.
 */
export async function mergeRescues(keys: string[], queue: KV<PendingAward>, dead: KV<DeadLetter>) {
  const awards = keys.flatMap((k): PendingAward[] => {
    try {
      return JSON.parse(localStorage.getItem(k) ?? '[]');
    } catch {
      return [];
    }
  });
  const known = new Set([...(await queue.all()), ...(await dead.all())].map((r) => r.idempotencyKey));
  await queue.setMany(awards.filter((r) => !known.has(r.idempotencyKey)).map((r) => [r.idempotencyKey, r]));
}
