import { DEFAULT_EVENT_NAME } from '../protocol/limits.js';
import type { PointsSummary } from '../protocol/responses.js';
import { idsOf, pairOf } from './pair.js';
import type { HistoryEntry, PendingAward, PointsView } from './types.js';

/** Totals are exact to 6 decimals (0.1 + 0.2 shows 0.3), as the service reports them. */
const round = (n: number) => Math.round(n * 1e6) / 1e6;
const sum = (awards: Iterable<{ eventPoints: number }>) => {
  let total = 0;
  for (const award of awards) total += award.eventPoints;
  return round(total);
};

/** Could this history entry be this award? (The service's entries carry no key.) */
const sameEvent = (award: PendingAward, event: PointsSummary['history'][number]) =>
  round(award.eventPoints) === round(event.eventPoints) &&
  (award.eventName ?? DEFAULT_EVENT_NAME) === event.eventName &&
  (award.eventDescription ?? '') === event.eventDescription;

/** The confirmed part of a view: the last read the live state accepted. `count`: the service's history length. */
export interface Base {
  totalPoints: number;
  count: number;
  history: PointsSummary['history'];
  at: number;
}

/** What a read knew when it started: the acknowledged awards it must contain, and the state it may replace. */
export interface ReadTicket {
  pair: string;
  certain: string[];
  version: number;
}

interface PairState {
  base?: Base;
  stale: boolean;
  /** Acknowledged by the service, not yet seen in an accepted read; in acknowledgement order. */
  sent: Map<string, PendingAward>;
  /** Bumped when the base changes: a read started before that is outdated. */
  version: number;
  view?: PointsView;
}

/**
 * The live state of (quest, user) pairs: a confirmed base, the awards acknowledged since (`sent`), and the outbox's
 * pending awards. totalPoints = base + sent + pending, and an award is in exactly one of the three.
 *
 * The service's history carries no idempotency keys, so a read cannot say which of our awards it contains. What is
 * known: an award acknowledged before the read started is in it (`certain`). Whether an award still pending, or
 * acknowledged while the read was in flight, is in it (`ambiguous`) is not known. So a read is accepted when no
 * ambiguous award can be in it: none is ambiguous; or its history grew by exactly the certain awards since the base
 * (each award adds one entry, so nothing else is in it); or no entry new since the base has an ambiguous award's
 * points, name and description. Otherwise it is dropped and the view keeps its base; the next read (after the drain
 * that settles the ambiguous awards) is accepted. So a read never counts an award twice
 * and never drops one, and the total moves only with awards queued, refused, or changes made elsewhere.
 */
export function createLive(pendingOf: (pair: string) => PendingAward[], historyLimit: number, now = Date.now) {
  const pairs = new Map<string, PairState>();
  const state = (pair: string): PairState => {
    let s = pairs.get(pair);
    if (!s) {
      s = { stale: false, sent: new Map(), version: 0 };
      pairs.set(pair, s);
    }
    return s;
  };

  /** Replaces the base when the rule above allows it; returns the keys it absorbed, or undefined when dropped. */
  function accept(pair: string, summary: PointsSummary, certain: string[], ambiguous: PendingAward[]): string[] | undefined {
    const s = state(pair);
    const grown = s.base ? summary.history.length - s.base.count : summary.history.length;
    const fresh = grown >= 0 ? summary.history.slice(0, grown) : summary.history;
    const exact = s.base !== undefined && grown === certain.length;
    if (ambiguous.length && !exact && ambiguous.some((a) => fresh.some((e) => sameEvent(a, e)))) return undefined;
    for (const key of certain) s.sent.delete(key);
    s.base = { totalPoints: summary.totalPoints, count: summary.history.length, history: summary.history.slice(0, historyLimit), at: now() };
    s.stale = false;
    s.version++;
    s.view = undefined;
    return certain;
  }

  /** Certain: the sent awards the read must hold. Every other sent award, and every pending one, is ambiguous. */
  function acceptWith(pair: string, summary: PointsSummary, certain: string[]): string[] | undefined {
    const known = new Set(certain);
    const racing = [...state(pair).sent.values()].filter((a) => !known.has(a.idempotencyKey));
    return accept(pair, summary, certain, [...pendingOf(pair), ...racing]);
  }

  function entry(award: PendingAward, state: HistoryEntry['state']): HistoryEntry {
    return {
      createdAt: new Date(award.queuedAt).toISOString(),
      eventPoints: award.eventPoints,
      eventName: award.eventName ?? DEFAULT_EVENT_NAME,
      eventDescription: award.eventDescription ?? '',
      state,
      idempotencyKey: award.idempotencyKey,
    };
  }

  function build(pair: string, s: PairState): PointsView {
    const { questId, serviceUserId } = idsOf(pair);
    const pending = pendingOf(pair)
      .filter((a) => !s.sent.has(a.idempotencyKey))
      .sort((a, b) => b.seq - a.seq);
    const sent = [...s.sent.values()].reverse();
    const confirmedPoints = s.base?.totalPoints ?? 0;
    const sentPoints = sum(sent);
    const pendingPoints = sum(pending);
    const history: HistoryEntry[] = pending.slice(0, historyLimit).map((a) => entry(a, 'pending'));
    for (const award of sent) {
      if (history.length >= historyLimit) break;
      history.push(entry(award, 'sent'));
    }
    for (const event of s.base?.history ?? []) {
      if (history.length >= historyLimit) break;
      history.push({ ...event, state: 'confirmed' });
    }
    return {
      questId,
      serviceUserId,
      totalPoints: round(confirmedPoints + sentPoints + pendingPoints),
      confirmedPoints,
      sentPoints,
      pendingPoints,
      history,
      pending,
      confirmedAt: s.base?.at ?? null,
      stale: s.stale,
    };
  }

  return {
    /** The view, the same object until something of this pair changes. */
    view(pair: string): PointsView {
      const s = state(pair);
      s.view ??= build(pair, s);
      return s.view;
    },
    /** Something of this pair changed (an award queued, refused, or left the outbox). */
    invalidate(pair: string) {
      const s = pairs.get(pair);
      if (s) s.view = undefined;
    },
    /** What an earlier page knew, cached: used until the first read, marked stale. */
    restore(pair: string, base: Base | undefined, sent: PendingAward[]) {
      const s = state(pair);
      // A read accepted meanwhile is newer than the cache, and may hold the cached acknowledgements already.
      if (s.base) return;
      s.base = base;
      s.stale = base !== undefined;
      for (const award of sent) s.sent.set(award.idempotencyKey, award);
      s.view = undefined;
    },
    /** The service acknowledged this award: pending -> sent, at once, without a read. */
    acknowledged(award: PendingAward) {
      const s = state(pairOf(award));
      s.sent.set(award.idempotencyKey, award);
      s.view = undefined;
    },
    beginRead(pair: string): ReadTicket {
      const s = state(pair);
      return { pair, certain: [...s.sent.keys()], version: s.version };
    },
    /** This tab's read answered: accepted unless a newer base came meanwhile or it is ambiguous (see above). */
    endRead(ticket: ReadTicket, summary: PointsSummary): string[] | undefined {
      if (state(ticket.pair).version !== ticket.version) return undefined;
      return acceptWith(ticket.pair, summary, ticket.certain);
    },
    /** Another tab's accepted read, with the keys it absorbed. */
    adopt(pair: string, summary: PointsSummary, absorbed: string[]): string[] | undefined {
      const sent = state(pair).sent;
      return acceptWith(
        pair,
        summary,
        absorbed.filter((key) => sent.has(key)),
      );
    },
    /** A read failed: the base (if any) is now stale. */
    failRead(pair: string) {
      const s = state(pair);
      if (!s.base || s.stale) return;
      s.stale = true;
      s.view = undefined;
    },
    base: (pair: string) => pairs.get(pair)?.base,
    /** Nothing tracks or uses the pair any more: its state goes (a later view starts from the outbox alone). */
    release: (pair: string) => void pairs.delete(pair),
    /** How many pairs have state (for tests: it follows the tracked pairs). */
    size: () => pairs.size,
  };
}

export type Live = ReturnType<typeof createLive>;
