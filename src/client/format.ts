// The stored-format contract, once, for the SDK and the service worker (docs/releases.md, "The stored-format
// contract"). Every record the queue, the dead letters, the cache and a pagehide rescue hold has a format: its `v`,
// and a record without one is format 1 — the shape every release so far wrote, and the one this code writes (so a
// page and a worker of an earlier release share the outbox with this one unchanged, and no byte is spent on a `v: 1`).
// A reader takes every earlier format and migrates it as it is read (lazily: the stored record changes only when it
// is written again); a record of a newer format is left where it is — never sent, never deleted, never rewritten —
// and reported once per page. Fields a reader does not know are carried through: no reader picks fields.

/**
 * The format this code reads and writes. A new one bumps it, writes `v: FORMAT` on every object record, and migrates
 * in readable() a record of each earlier format to its own shape.
 */
export const FORMAT = 1;

/** What the console and the client's `error` event (during 'format') say. */
export const NEWER = 'quest-points: records of a newer stored format left as they are';

/** What a reader calls on meeting a record of a newer format: reporter()'s function. */
export type Newer = () => void;

/** Reports the first record of a newer format this reader (a client, the worker) meets: the console, then `emit`. */
export function reporter(emit?: (message: string) => void): Newer {
  let told = false;
  return () => {
    if (told) return;
    told = true;
    console.warn(NEWER);
    emit?.(NEWER);
  };
}

/** A stored record as this code holds it (format 1: as it is), or undefined for a record of a newer format (reported). */
export function readable<T>(record: T, newer?: Newer): T | undefined {
  // No `v` (undefined > FORMAT is false): format 1.
  if (!(((record as { v?: number } | undefined)?.v as number) > FORMAT)) return record;
  newer?.();
  return undefined;
}
