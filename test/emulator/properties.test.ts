// For any interleaving of awards, replays and reads: total == sum(history) exactly, and each key applies once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { emulator } from './helpers.js';

const USERS = ['u0', 'u1', 'u2'];

/** Points as an exact decimal: n / 10^places, so the expected micro-points are known without the emulator's code. */
const pointsArb = fc.record({ n: fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), places: fc.integer({ min: 0, max: 6 }) });
const microOf = ({ n, places }: { n: number; places: number }) => BigInt(n) * 10n ** BigInt(6 - places);
const decimal = (micro: bigint) => {
  const abs = micro < 0n ? -micro : micro;
  return Number(`${micro < 0n ? '-' : ''}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`);
};
/** Exact sum of a history, by reading each number back as its decimal. */
const exactSum = (history: { eventPoints: number }[]) =>
  history.reduce((sum, e) => {
    const [whole = '0', fraction = ''] = String(Math.abs(e.eventPoints)).split('.');
    const micro = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
    return sum + (e.eventPoints < 0 ? -micro : micro);
  }, 0n);

const opArb = fc.oneof(
  fc.record({ kind: fc.constant('keyed' as const), key: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('plain' as const), user: fc.integer({ min: 0, max: 2 }), points: pointsArb }),
  fc.record({ kind: fc.constant('read' as const), user: fc.integer({ min: 0, max: 2 }) }),
);

describe('ledger properties', () => {
  it('any interleaving of awards, replays and reads keeps total == sum(history) and applies each key once', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Each key stands for one award (its body); a key used again is a replay of it.
        fc.array(fc.record({ user: fc.integer({ min: 0, max: 2 }), points: pointsArb }), { minLength: 6, maxLength: 6 }),
        // Groups of operations that run concurrently, groups one after another.
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        async (keyed, groups) => {
          const { send } = emulator({ admin: true });
          const keys = keyed.map(() => crypto.randomUUID());
          const expected = new Map(USERS.map((u) => [u, 0n]));
          const usedKeys = new Set<number>();
          const award = (user: number, points: { n: number; places: number }, key?: string) =>
            send('POST', paths.points('quest'), {
              body: { serviceUserId: USERS[user], eventPoints: points.n / 10 ** points.places },
              ...(key ? { headers: { IDEMPOTENCY_KEY: key } } : {}),
            });

          for (const group of groups) {
            await Promise.all(
              group.map(async (op) => {
                if (op.kind === 'read') {
                  const { body } = await send('GET', paths.pointsOf('quest', USERS[op.user] as string));
                  expect(exactSum(body.data.history)).toBe(exactSum([{ eventPoints: body.data.totalPoints }]));
                  return;
                }
                if (op.kind === 'plain') {
                  expect((await award(op.user, op.points)).status).toBe(200);
                  const user = USERS[op.user] as string;
                  expected.set(user, (expected.get(user) ?? 0n) + microOf(op.points));
                  return;
                }
                const k = keyed[op.key] as (typeof keyed)[number];
                const first = !usedKeys.has(op.key);
                usedKeys.add(op.key);
                if (first) {
                  const user = USERS[k.user] as string;
                  expected.set(user, (expected.get(user) ?? 0n) + microOf(k.points));
                }
                // 409 only while another request with the key is in flight.
                expect([200, 409]).toContain((await award(k.user, k.points, keys[op.key])).status);
              }),
            );
          }

          for (const user of USERS) {
            const { body } = await send('GET', paths.pointsOf('quest', user));
            const want = expected.get(user) ?? 0n;
            expect(exactSum(body.data.history)).toBe(want);
            expect(body.data.totalPoints).toBe(decimal(want));
          }
          const ledger = (await send('GET', '/__emulator/state')).body.data.ledger as { idempotencyKey: string | null }[];
          for (const i of usedKeys) expect(ledger.filter((e) => e.idempotencyKey === keys[i])).toHaveLength(1);
          for (const [i, key] of keys.entries()) if (!usedKeys.has(i)) expect(ledger.some((e) => e.idempotencyKey === key)).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('with injected errors and lost acknowledgements, retrying each key until 200 applies it exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 }), fc.array(pointsArb, { minLength: 1, maxLength: 15 }), async (seed, awards) => {
        const { send } = emulator({ admin: true, faults: { seed, errorRate: 0.3, lostAckRate: 0.3, lostAckMode: '503' } });
        let want = 0n;
        for (const points of awards) {
          const key = crypto.randomUUID();
          const body = { serviceUserId: 'u', eventPoints: points.n / 10 ** points.places };
          let status = 0;
          for (let attempt = 0; status !== 200 && attempt < 100; attempt++) {
            status = (await send('POST', paths.points('q'), { body, headers: { IDEMPOTENCY_KEY: key } })).status;
            expect([200, 500, 503, 429]).toContain(status);
          }
          want += microOf(points);
        }
        await send('PUT', '/__emulator/faults', { body: {} });
        const { body } = await send('GET', paths.pointsOf('q', 'u'));
        expect(body.data.history).toHaveLength(awards.length);
        expect(exactSum(body.data.history)).toBe(want);
        expect(body.data.totalPoints).toBe(decimal(want));
      }),
      { numRuns: 60 },
    );
  });
});
