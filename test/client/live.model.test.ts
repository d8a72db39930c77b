import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLive, type Base } from '../../src/client/live.js';
import { pointsKey } from '../../src/client/pair.js';
import type { PendingAward } from '../../src/client/types.js';
import type { PointsSummary } from '../../src/protocol/responses.js';

// A model-based test of the live state (src/client/live.ts) against a model service. Every step is one thing that
// happens to a client: an award queued, sent and acknowledged, sent with the acknowledgement lost, refused, a read
// begun / served by the service / answered (so reads race acknowledgements), another tab's acknowledgement or read,
// an award made elsewhere, a reload. After every step: total = confirmed + sent + pending, each of this client's
// awards is counted exactly once (in the read it came from, as sent, or as pending), and the total never goes down
// but by a refused award's points. After quiescence the view equals the service's summary.

const QUEST = 'q';
const USER = 'u';
const PAIR = pointsKey(QUEST, USER);
const NAMES = ['coin', 'gem'] as const;

type Step =
  | { t: 'award'; points: number; name: (typeof NAMES)[number] }
  | { t: 'ack'; pick: number; otherTab: boolean }
  | { t: 'lost'; pick: number }
  | { t: 'refuse'; pick: number }
  | { t: 'begin' }
  | { t: 'serve'; pick: number }
  | { t: 'answer'; pick: number }
  | { t: 'failRead'; pick: number }
  | { t: 'shared' }
  | { t: 'elsewhere'; points: number; name: (typeof NAMES)[number] }
  | { t: 'reload' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ t: fc.constant('award' as const), points: fc.integer({ min: 1, max: 9 }), name: fc.constantFrom(...NAMES) }),
  fc.record({ t: fc.constant('ack' as const), pick: fc.nat(), otherTab: fc.boolean() }),
  fc.record({ t: fc.constant('lost' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('refuse' as const), pick: fc.nat() }),
  fc.constant({ t: 'begin' as const }),
  fc.record({ t: fc.constant('serve' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('answer' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('failRead' as const), pick: fc.nat() }),
  fc.constant({ t: 'shared' as const }),
  fc.record({ t: fc.constant('elsewhere' as const), points: fc.integer({ min: 1, max: 9 }), name: fc.constantFrom(...NAMES) }),
  fc.constant({ t: 'reload' as const }),
);

/** The service: an append-only ledger, idempotent by key. */
function modelService() {
  const ledger: { key: string; points: number; name: string }[] = [];
  return {
    ledger,
    apply(key: string, points: number, name: string) {
      if (!ledger.some((e) => e.key === key)) ledger.push({ key, points, name });
    },
    /** A summary, and which keys it holds (the client cannot see them: the real history has no keys). */
    read(): { summary: PointsSummary; keys: Set<string> } {
      const history = [...ledger].reverse().map((e, i) => ({
        createdAt: new Date(1_700_000_000_000 + ledger.length - i).toISOString(),
        eventPoints: e.points,
        eventName: e.name,
        eventDescription: '',
      }));
      return { summary: { totalPoints: ledger.reduce((s, e) => s + e.points, 0), history }, keys: new Set(ledger.map((e) => e.key)) };
    },
  };
}

function run(steps: Step[]) {
  const service = modelService();
  const pending = new Map<string, PendingAward>();
  const mine = new Map<string, PendingAward>();
  const refused = new Set<string>();
  /** Acknowledged awards, in order (what a tab that saw every acknowledgement knows). */
  const acknowledged: string[] = [];
  /** What the cache holds: the accepted base (with the keys it holds, for the checks) and unabsorbed sent awards. */
  let cached: { base?: Base; keys: Set<string>; sent: Map<string, PendingAward> } = { keys: new Set(), sent: new Map() };
  let seq = 0;
  const newLive = () =>
    createLive(
      () => [...pending.values()],
      10_000,
      () => 0,
    );
  let live = newLive();
  let baseKeys = new Set<string>();
  type Read = { ticket: ReturnType<typeof live.beginRead>; served?: ReturnType<typeof service.read> };
  let reads: Read[] = [];

  const accept = (absorbed: string[] | undefined, served: ReturnType<typeof service.read>) => {
    if (!absorbed) return;
    baseKeys = served.keys;
    cached = { base: live.base(PAIR), keys: served.keys, sent: cached.sent };
    for (const key of absorbed) cached.sent.delete(key);
  };
  const pickFrom = <T>(items: T[], pick: number) => (items.length ? items[pick % items.length] : undefined);

  let before = live.view(PAIR).totalPoints;
  for (const s of steps) {
    let allowedDrop = 0;
    if (s.t === 'award') {
      const award: PendingAward = {
        questId: QUEST,
        serviceUserId: USER,
        eventPoints: s.points,
        eventName: s.name,
        idempotencyKey: `k${++seq}`,
        queuedAt: seq,
        seq,
      };
      pending.set(award.idempotencyKey, award);
      mine.set(award.idempotencyKey, award);
      live.invalidate(PAIR);
    } else if (s.t === 'ack' || s.t === 'lost') {
      const award = pickFrom([...pending.values()], s.pick);
      if (award) {
        service.apply(award.idempotencyKey, award.eventPoints, award.eventName!);
        if (s.t === 'ack') {
          pending.delete(award.idempotencyKey);
          acknowledged.push(award.idempotencyKey);
          live.acknowledged(award);
          // Whichever tab received the acknowledgement caches it; the cache is one IndexedDB store for all tabs.
          cached.sent.set(award.idempotencyKey, award);
        }
      }
    } else if (s.t === 'refuse') {
      // A final refusal: never applied (a lost acknowledgement's resend is replayed, not refused).
      const award = pickFrom(
        [...pending.values()].filter((a) => !service.ledger.some((e) => e.key === a.idempotencyKey)),
        s.pick,
      );
      if (award) {
        pending.delete(award.idempotencyKey);
        refused.add(award.idempotencyKey);
        allowedDrop = award.eventPoints;
        live.invalidate(PAIR);
      }
    } else if (s.t === 'begin') {
      reads.push({ ticket: live.beginRead(PAIR) });
    } else if (s.t === 'serve') {
      const read = pickFrom(
        reads.filter((r) => !r.served),
        s.pick,
      );
      if (read) read.served = service.read();
    } else if (s.t === 'answer' || s.t === 'failRead') {
      const read = pickFrom(
        reads.filter((r) => r.served),
        s.pick,
      );
      if (read) {
        reads = reads.filter((r) => r !== read);
        if (s.t === 'answer') accept(live.endRead(read.ticket, read.served!.summary), read.served!);
        else live.failRead(PAIR);
      }
    } else if (s.t === 'shared') {
      // Another tab that saw every acknowledgement so far reads now: it absorbs them all.
      const served = service.read();
      accept(live.adopt(PAIR, served.summary, [...acknowledged]), served);
    } else if (s.t === 'elsewhere') {
      service.apply(`x${++seq}`, s.points, s.name);
    } else {
      live = newLive();
      reads = [];
      live.restore(PAIR, cached.base, [...cached.sent.values()]);
      baseKeys = cached.base ? cached.keys : new Set();
    }

    const view = live.view(PAIR);
    expect(view.totalPoints).toBe(view.confirmedPoints + view.sentPoints + view.pendingPoints);
    const sentKeys = view.history.filter((e) => e.state === 'sent').map((e) => e.idempotencyKey);
    const pendingKeys = view.pending.map((a) => a.idempotencyKey);
    for (const key of mine.keys()) {
      if (refused.has(key)) continue;
      const places = Number(baseKeys.has(key)) + sentKeys.filter((k) => k === key).length + pendingKeys.filter((k) => k === key).length;
      expect(places, `award ${key} counted ${places} times`).toBe(1);
    }
    expect(view.totalPoints).toBeGreaterThanOrEqual(before - allowedDrop);
    before = s.t === 'reload' ? view.totalPoints : Math.max(before - allowedDrop, view.totalPoints);
  }

  // Quiescence: everything pending is acknowledged, then a read with nothing in flight.
  for (const award of [...pending.values()]) {
    service.apply(award.idempotencyKey, award.eventPoints, award.eventName!);
    pending.delete(award.idempotencyKey);
    live.acknowledged(award);
  }
  const ticket = live.beginRead(PAIR);
  const served = service.read();
  expect(live.endRead(ticket, served.summary)).toBeDefined();
  const view = live.view(PAIR);
  expect(view.totalPoints).toBe(served.summary.totalPoints);
  expect(view.history.map(({ state, idempotencyKey, ...event }) => event)).toEqual(served.summary.history);
  expect(view.history.every((e) => e.state === 'confirmed')).toBe(true);
}

describe('live state, model-based', () => {
  it('never counts an award twice nor drops one, never goes down, and equals the service after quiescence (1,000 runs)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => run(steps)),
      { numRuns: 1000 },
    );
  });

  it('a read that raced an acknowledgement is dropped, then the next one absorbs it without counting it twice', () => {
    run([
      { t: 'award', points: 5, name: 'coin' },
      { t: 'begin' },
      { t: 'ack', pick: 0, otherTab: false },
      { t: 'serve', pick: 0 },
      { t: 'answer', pick: 0 },
      { t: 'begin' },
      { t: 'serve', pick: 0 },
      { t: 'answer', pick: 0 },
    ]);
  });
});
