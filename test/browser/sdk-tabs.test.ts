// Several tabs of one origin: one flusher per storage name (Web Locks), queue and totals shared over a
// BroadcastChannel, and a second storage name that is a separate outbox flushed on its own.
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, nextAward, openSdkPage, uniqueId, until, type OpenedPage, type ProxiedAward, setupBrowserStack } from './harness.js';

const inContext = setupBrowserStack();

const award = (tab: OpenedPage, points: number[]) => tab.sdk((page, pts) => pts.map((p) => page.award(p)), points);
const drained = (tab: OpenedPage) => until(async () => (await tab.sdk((page) => page.pendingKeys())).length === 0, `tab to drain`);
const eventsOf = (tab: OpenedPage) => tab.sdk((page) => page.events);

/** Pairs of award requests whose [start, end] intervals intersect. */
function overlapping(requests: ProxiedAward[]): [ProxiedAward, ProxiedAward][] {
  const pairs: [ProxiedAward, ProxiedAward][] = [];
  for (const [i, a] of requests.entries())
    for (const b of requests.slice(i + 1)) if (a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity)) pairs.push([a, b]);
  return pairs;
}

describe('SDK in Chromium: tabs', () => {
  it(
    "two tabs, one storage name: one flusher at a time, every award once, each tab sees the other's queue",
    () =>
      inContext(
        async (stack, context) => {
          const sub = uniqueId('tabs');
          // Long enough requests that tabs awarding at once would send at once without the lock.
          const options = { sub, storage: 'tabs-shared', backoffBase: 100, backoffMax: 500 };
          const a = await openSdkPage(stack, context, { ...options, tab: 'A' });
          const b = await openSdkPage(stack, context, { ...options, tab: 'B' });
          const issued = new Map<string, number>();
          const record = (keys: string[], points: number[]) => {
            for (const [i, key] of keys.entries()) issued.set(key, points[i]!);
          };

          // Tab A alone: B hears of A's awards as they are queued and as they are acknowledged.
          const aKeys = await award(a, [1, 2, 3]);
          record(aKeys, [1, 2, 3]);
          await drained(a);
          await until(async () => {
            const sent = (await eventsOf(b)).filter((e) => e.name === 'award:sent').map((e) => e.data.key);
            return aKeys.every((key) => sent.includes(key));
          }, "tab B to see A's awards acknowledged");
          const bEvents = await eventsOf(b);
          expect(bEvents.filter((e) => e.name === 'queue:changed').map((e) => e.data.queueSize)).toContain(3);
          expect(bEvents.some((e) => e.name === 'points:changed' && aKeys.every((key) => (e.data.pendingKeys as string[]).includes(key)))).toBe(true);
          // A's flush refreshed the totals and shared them: B shows A's points as confirmed.
          await until(async () => (await b.sdk((page) => page.snapshot())).points[0]?.confirmedPoints === 6, "tab B to show A's 6 points confirmed");

          // Tab B alone, the other way round.
          const bKeys = await award(b, [10, 20]);
          record(bKeys, [10, 20]);
          await drained(b);
          await until(async () => {
            const sent = (await eventsOf(a)).filter((e) => e.name === 'award:sent').map((e) => e.data.key);
            return bKeys.every((key) => sent.includes(key));
          }, "tab A to see B's awards acknowledged");
          expect((await eventsOf(a)).filter((e) => e.name === 'queue:changed').map((e) => e.data.queueSize)).toContain(2);

          // Both at once, several rounds: the tab that holds the lock sends the other's awards too. Each next round is
          // awarded once a request carrying the previous round is on the wire, so new awards meet a flush in flight.
          for (let round = 0; round < 4; round++) {
            const points = [round + 0.5, round + 1.25, round + 2];
            const [fromA, fromB] = await Promise.all([award(a, points), award(b, points)]);
            record(fromA, points);
            record(fromB, points);
            const roundKeys = [...fromA, ...fromB];
            await nextAward(stack, (r) => r.keys.some((key) => roundKeys.includes(key)));
          }
          await Promise.all([drained(a), drained(b)]);

          const ledger = await expectExactlyOnce(stack, sub, issued);
          const requests = stack.awards.filter((r) => r.keys.some((key) => issued.has(key)));
          expect(new Set(requests.map((r) => r.tab))).toEqual(new Set(['A', 'B']));
          expect(requests.every((r) => r.end !== undefined)).toBe(true);
          // Web Locks: no two award requests of this storage name were ever outstanding at once, across both tabs.
          expect(overlapping(requests).map(([x, y]) => `${x.tab}@${x.start.toFixed(0)} overlaps ${y.tab}@${y.start.toFixed(0)}`)).toEqual([]);

          const total = ledger.reduce((sum, entry) => sum + entry.eventPoints, 0);
          for (const tab of [a, b]) {
            await until(
              async () => (await tab.sdk((page) => page.snapshot())).points[0]?.totalPoints === total,
              `tab ${tab === a ? 'A' : 'B'} to show ${total}`,
            );
            expect((await tab.sdk((page) => page.snapshot())).points[0]).toMatchObject({ pendingPoints: 0, pendingKeys: [] });
            expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
            expect((await eventsOf(tab)).filter((e) => e.name === 'error')).toEqual([]);
            // Every award of either tab settled as sent in the tab that queued it.
            const outcomes = await tab.sdk((page) => page.outcomes);
            expect(Object.values(outcomes).every((status) => status === 'sent')).toBe(true);
            expect(tab.errors).toEqual([]);
          }
          const outcomesA = await a.sdk((page) => page.outcomes);
          const outcomesB = await b.sdk((page) => page.outcomes);
          expect(Object.keys(outcomesA).length + Object.keys(outcomesB).length).toBe(issued.size);
        },
        { latencyMs: 150 },
      ),
    45_000,
  );

  it(
    'a second storage name on the same origin is its own outbox, flushed independently',
    () =>
      inContext(
        async (stack, context) => {
          const sub = uniqueId('names');
          const first = await openSdkPage(stack, context, { sub, tab: 'first', storage: 'game-one', backoffBase: 100, backoffMax: 500 });
          const second = await openSdkPage(stack, context, { sub, tab: 'second', storage: 'game-two', backoffBase: 100, backoffMax: 500 });
          const firstKeys = await award(first, [1, 2, 3]);
          const firstBatch = await nextAward(stack, (r) => r.tab === 'first' && firstKeys.every((key) => r.keys.includes(key)));
          const secondKeys = await award(second, [40, 50]);
          const secondBatch = await nextAward(stack, (r) => r.tab === 'second' && secondKeys.every((key) => r.keys.includes(key)));
          // The first name's flush is still outstanding: the second did not wait for its lock.
          expect(firstBatch.end).toBeUndefined();

          // Both outboxes in flight, each holding only its own awards (read straight from IndexedDB).
          const stored = await first.sdk(async (page) => ({ one: await page.storedOutbox('game-one'), two: await page.storedOutbox('game-two') }));
          expect(stored.one.map((r) => r.key).sort()).toEqual([...firstKeys].sort());
          expect(stored.two.map((r) => r.key).sort()).toEqual([...secondKeys].sort());
          expect((await first.sdk((page) => page.pendingKeys())).sort()).toEqual([...firstKeys].sort());
          expect((await second.sdk((page) => page.pendingKeys())).sort()).toEqual([...secondKeys].sort());

          await Promise.all([drained(first), drained(second)]);
          // The two names' flushes overlapped on the wire: the second started before the first was answered.
          await until(() => firstBatch.end !== undefined && secondBatch.end !== undefined, 'both batches answered');
          expect(secondBatch.start).toBeLessThan(firstBatch.end!);
          expect([firstBatch.status, secondBatch.status]).toEqual([200, 200]);
          const issued = new Map([...firstKeys.map((key, i) => [key, i + 1] as const), ...secondKeys.map((key, i) => [key, (i + 4) * 10] as const)]);
          await expectExactlyOnce(stack, sub, issued);

          // Nothing crossed over: each tab's requests and events carry only its own keys.
          const others = (mine: string[]) => [...issued.keys()].filter((key) => !mine.includes(key));
          for (const [tab, label, mine] of [
            [first, 'first', firstKeys],
            [second, 'second', secondKeys],
          ] as const) {
            const requests = stack.awards.filter((r) => r.tab === label);
            expect(requests.flatMap((r) => r.keys).filter((key) => !mine.includes(key))).toEqual([]);
            const seen = JSON.stringify(await eventsOf(tab));
            expect(others(mine).filter((key) => seen.includes(key))).toEqual([]);
            expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
            expect(tab.errors).toEqual([]);
          }
        },
        { latencyMs: 800 },
      ),
    30_000,
  );

  it(
    "awards queued in tab B while tab A flushes are sent by A; B's handles settle, refusals reach B's dead letters",
    () =>
      inContext(
        async (stack, context) => {
          const sub = uniqueId('relayed');
          const options = { sub, storage: 'tabs-relayed', backoffBase: 100, backoffMax: 500 };
          const a = await openSdkPage(stack, context, { ...options, tab: 'A' });
          const aKeys = await award(a, [1, 2]);
          const aBatch = await nextAward(stack, (r) => r.tab === 'A' && aKeys.every((key) => r.keys.includes(key)));
          // B opens while A's batch is held at the service, so A holds the flush lock: B's start-up flush cannot take it.
          const b = await openSdkPage(stack, context, { ...options, tab: 'B' });
          // While A holds the lock: one award the policy accepts, one over its cap (maxPointsPerAward 1000).
          const [good, refused] = await award(b, [7, 5000]);
          expect(aBatch.end).toBeUndefined();
          b.expectNetworkErrors(/status of 422 .*\/api\/group-quests\//);
          a.expectNetworkErrors(/status of 422 .*\/api\/group-quests\//);
          await until(async () => Object.keys(await b.sdk((page) => page.outcomes)).length === 2, "B's awards to settle");

          expect(await b.sdk((page) => page.outcomes)).toEqual({ [good!]: 'sent', [refused!]: 'rejected' });
          // Only A sent anything: B never held the lock.
          const requests = stack.awards.filter((r) => r.keys.some((key) => key === good || key === refused || aKeys.includes(key)));
          expect(new Set(requests.map((r) => r.tab))).toEqual(new Set(['A']));
          await expectExactlyOnce(
            stack,
            sub,
            new Map([
              [aKeys[0]!, 1],
              [aKeys[1]!, 2],
              [good!, 7],
            ]),
          );
          const rejected = (await b.sdk((page) => page.events)).filter((e) => e.name === 'award:rejected');
          expect(rejected.map((e) => [e.data.key, e.data.status])).toEqual([[refused, 422]]);
          for (const tab of [a, b]) {
            expect(await tab.sdk(async (page) => (await page.qp.deadLetters()).map((d) => d.idempotencyKey))).toEqual([refused]);
            expect((await tab.sdk((page) => page.snapshot())).deadLetterCount).toBe(1);
            expect(await tab.sdk((page) => page.storedOutbox())).toEqual([]);
            expect(tab.errors).toEqual([]);
          }
        },
        { latencyMs: 2500 },
      ),
    30_000,
  );
});
