import { unref } from './triggers.js';

/** How long a pair's live state outlives its last watcher (TanStack Query's gcTime): a watch again soon finds it. */
export const RELEASE_MS = 5_000;

export interface TrackedDeps {
  /** The client's own pair: tracked for the client's life. */
  own: string | undefined;
  /** The pair is no longer tracked nor used: its live state goes. */
  release(pair: string): void;
  graceMs?: number;
}

/**
 * Which pairs the client keeps live: its own pair, and each pair while something watches it (counted per watch). A
 * tracked pair is read at start-up, on the poll, `online`, a visible tab and after a drain; any other pair only when
 * asked (fetchPoints). A pair that stops being tracked, or is used without being tracked (viewPoints, fetchPoints of
 * another pair), has its state released after `graceMs` unless it is tracked again by then.
 */
export function createTracked({ own, release, graceMs = RELEASE_MS }: TrackedDeps) {
  const watches = new Map<string, number>();
  const releasing = new Map<string, ReturnType<typeof setTimeout>>();
  const has = (pair: string) => pair === own || watches.has(pair);

  /** Releases the pair after the grace, unless it is tracked again by then. */
  function later(pair: string) {
    if (has(pair) || releasing.has(pair)) return;
    const timer = setTimeout(() => {
      releasing.delete(pair);
      if (!has(pair)) release(pair);
    }, graceMs);
    releasing.set(pair, unref(timer));
  }

  return {
    has,
    /** The tracked pairs: the own pair first, then the watched ones. */
    pairs: (): string[] => [...new Set([...(own ? [own] : []), ...watches.keys()])],
    /** One more watch of the pair; true when it was not tracked before (it needs a first read). */
    watch(pair: string): boolean {
      const fresh = !has(pair);
      watches.set(pair, (watches.get(pair) ?? 0) + 1);
      clearTimeout(releasing.get(pair));
      releasing.delete(pair);
      return fresh;
    },
    unwatch(pair: string) {
      const left = (watches.get(pair) ?? 1) - 1;
      if (left > 0) watches.set(pair, left);
      else {
        watches.delete(pair);
        later(pair);
      }
    },
    /** The pair's state was made or read without a watch: it goes after the grace unless watched. */
    used: later,
  };
}

export type Tracked = ReturnType<typeof createTracked>;
