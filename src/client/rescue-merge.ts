import { readable, type Newer } from './format.js';
import type { KV } from './store.js';
import type { DeadLetter, PendingAward } from './types.js';

/** One rescue's awards as stored; none when it is unreadable (or localStorage throws). */
function read(key: string): PendingAward[] {
  try {
    const awards = JSON.parse(localStorage.getItem(key) ?? '[]');
    return Array.isArray(awards) ? awards : [];
  } catch {
    return [];
  }
}

/**
 * Settled awards (`settled`: their keys) leave these rescues, in one task: a rescue left empty is removed. A tab that
 * stashes its own rescue meanwhile writes what it holds, which no longer has them either.
 */
export function forgetRescued(rescues: string[], settled: string[]) {
  const gone = new Set(settled);
  try {
    for (const key of rescues) {
      const awards = read(key);
      const kept = awards.filter((a) => !gone.has(a.idempotencyKey));
      if (kept.length === awards.length) continue;
      if (kept.length) localStorage.setItem(key, JSON.stringify(kept));
      else localStorage.removeItem(key);
    }
  } catch {
    // localStorage gone or full: the rescue stays; a later visit sends it again under its key (a replay, deduped).
  }
}

/**
 * Start-up, when earlier pages left rescues (rescue.ts): their awards join the store, skipping those known there
 * (queued or dead-lettered, by key: a record of a newer format counts too, and is never overwritten); unreadable
 * rescues are skipped. Returns the rescues to remove: all but those holding an award of a newer stored format, left
 * for the release that wrote it (format.ts). Loaded only when a rescue was found: most pages have none.
 */
export async function mergeRescues(keys: string[], queue: KV<PendingAward>, dead: KV<DeadLetter>, newer?: Newer): Promise<string[]> {
  const known = new Set([...(await queue.keys()), ...(await dead.keys())]);
  const done: string[] = [];
  const awards: PendingAward[] = [];
  for (const key of keys) {
    const stored = read(key);
    const current = stored.flatMap((r) => readable(r, newer) ?? []);
    awards.push(...current);
    if (current.length === stored.length) done.push(key);
  }
  await queue.setMany(awards.filter((r) => !known.has(r.idempotencyKey)).map((r) => [r.idempotencyKey, r]));
  return done;
}
