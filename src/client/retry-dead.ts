import { v5 } from 'uuid';
import { QuestPointsError } from './errors.js';
import type { Outbox } from './outbox.js';
import type { AwardHandle, DeadLetter } from './types.js';

/**
 * The namespace of retried awards' keys. Fixed for ever: a key derived by one release must be derived the same by the
 * next (a tab of each may retry the same letter), or one award could be applied twice.
 */
const RETRY_NAMESPACE = '3f0c2a4e-8b1d-5c6f-9a7e-2d4b6c8e0f1a';

/**
 * The key a dead letter is retried under: UUIDv5 of its own key. Every retry of one letter, in any tab, at any time,
 * derives the same key, so they queue one award and the service applies it once (a repeat is an idempotent replay).
 * The old key names the generation: an award retried, refused again and retried again derives from its retried key
 * (k, v5(k), v5(v5(k)): the chain counts the retries), a fresh key each time the service refused the last one.
 */
export const retryKey = (key: string): string => v5(key.toLowerCase(), RETRY_NAMESPACE);

export interface RetryDeps {
  outbox: Outbox;
  /** Queues the letter's award under `key` (award()'s path: events, views, the flush): its handle. */
  enqueue(letter: DeadLetter, key: string): AwardHandle;
  /** Removes the dead letter (every tab's count follows). */
  discard(key: string): Promise<void>;
}

/**
 * retryDeadLetter(), loaded on its first call (most games never call it; UUIDv5 needs SHA-1). The award enters the
 * queue under the derived key and only then does the letter leave the dead store: never in neither. The two are
 * separate IndexedDB databases (the layout every release and the service worker share), so no one transaction holds
 * both; the derived key is what makes the pair of writes safe to repeat: a second retry (a double click, another tab,
 * a page that died between the two writes) writes the same award under the same key and deletes the same letter.
 */
export function retryDead(key: string, deps: RetryDeps): Promise<string> {
  // A second call while one is in flight (a double click) joins it: one award:queued, one store write.
  const inFlight = retrying.get(deps.outbox) ?? new Map<string, Promise<string>>();
  retrying.set(deps.outbox, inFlight);
  let retry = inFlight.get(key);
  if (!retry) {
    retry = retryOnce(key, deps).finally(() => inFlight.delete(key));
    inFlight.set(key, retry);
  }
  return retry;
}

/** Retries in flight, per client (its outbox) and dead letter. */
const retrying = new WeakMap<Outbox, Map<string, Promise<string>>>();

async function retryOnce(key: string, { outbox, enqueue, discard }: RetryDeps): Promise<string> {
  const derived = retryKey(key);
  const letter = (await outbox.deadLetters()).find((d) => d.idempotencyKey === key);
  if (letter) {
    // The queue first (this tab's store chain, in order), then the letter leaves: only once the award is stored. While
    // storage fails the award is in this tab's memory only, so the letter stays until the award is acknowledged (a
    // page closed first leaves the letter, and retrying it again derives the same key: nothing is applied twice).
    const handle = enqueue(letter, derived);
    if (await handle.persisted) await discard(key);
    else void handle.settled.then((o) => (o.outcome === 'sent' ? discard(key) : undefined)).catch(() => {});
    return derived;
  }
  // Gone: another retry took it (in this tab or another). Its award is queued under the same key: nothing to add.
  if ((await outbox.reload()).some((a) => a.idempotencyKey === derived)) return derived;
  throw new QuestPointsError(`idempotencyKey ${key} is not a dead letter`, 'invalid', undefined, 'idempotencyKey');
}
