import { describe, expect, it } from 'vitest';
import { createPlayerQueue } from '../../src/relay/player-queue.js';
import { token } from '../helpers/fixtures.js';
import { until as waitFor } from '../helpers/until.js';
import { award, fakeRelay, type SeenRequest } from './helpers.js';

/** A promise and its resolve, to hold a fake service's answer until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** In-process: a short bound, polled often. */
const until = (condition: () => boolean, what: string) => waitFor(condition, what, 2000, 2);

const pointsOf = (seen: SeenRequest[], user: string) =>
  seen.filter((r) => (r.body as { serviceUserId: string }).serviceUserId === user).map((r) => (r.body as { eventPoints: number }).eventPoints);

describe("one player's awards reach the service in award order", () => {
  it('two concurrent batches of one player are not interleaved; another player is not held up', async () => {
    const first = gate();
    const { call, seen } = fakeRelay({
      reply: async (r) => {
        if ((r.body as { eventPoints: number }).eventPoints === 1) await first.opened;
        return Response.json({ success: true });
      },
    });
    const [alice, bob] = [await token({ sub: 'alice' }), await token({ sub: 'bob' })];
    // A page's batch, still in flight, and its reloaded successor's.
    const before = call('POST', '/batch/points', { token: alice, body: { awards: [1, 2, 3].map((n) => award('q', 'alice', n)) } });
    await until(() => seen.length === 1, 'the first award at the service');
    const after = call('POST', '/batch/points', { token: alice, body: { awards: [4, 5].map((n) => award('q', 'alice', n)) } });
    // Bob's batch goes through while Alice's first award is stuck.
    const other = await call('POST', '/batch/points', { token: bob, body: { awards: [award('q', 'bob', 9)] } });
    expect(other.json.results[0].outcome).toBe('ok');
    expect(pointsOf(seen, 'alice')).toEqual([1]);
    first.open();
    const [a, b] = await Promise.all([before, after]);
    expect([...a.json.results, ...b.json.results].map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(pointsOf(seen, 'alice')).toEqual([1, 2, 3, 4, 5]);
  });

  it('a single-route award waits for the batch in flight of the same player', async () => {
    const first = gate();
    const { call, seen } = fakeRelay({
      reply: async (r) => {
        if ((r.body as { eventPoints: number }).eventPoints === 1) await first.opened;
        return Response.json({ success: true });
      },
    });
    const t = await token({ sub: 'alice' });
    const batch = call('POST', '/batch/points', { token: t, body: { awards: [1, 2].map((n) => award('q', 'alice', n)) } });
    await until(() => seen.length === 1, 'the first award at the service');
    const beacon = call('POST', '/group-quests/q/points', { token: t, body: { serviceUserId: 'alice', eventPoints: 3 } });
    first.open();
    await Promise.all([batch, beacon]);
    expect(pointsOf(seen, 'alice')).toEqual([1, 2, 3]);
  });
});

describe('the per-player queue', () => {
  it('forgets a player once its work is done, and bounds the players waiting', async () => {
    const queue = createPlayerQueue(2);
    const a = await queue.acquire('a');
    const b = await queue.acquire('b');
    expect(queue.size).toBe(2);
    expect(await queue.acquire('c')).toBe('busy');
    if (typeof a === 'string' || typeof b === 'string') throw new Error('expected turns');
    a.release();
    b.release();
    await until(() => queue.size === 0, 'the queue to empty');
    expect(typeof (await queue.acquire('c'))).toBe('object');
  });

  it('a waiter that gives up does not let the next one jump ahead of the running turn', async () => {
    const queue = createPlayerQueue();
    const running = await queue.acquire('p');
    if (typeof running === 'string') throw new Error('expected a turn');
    const quitter = new AbortController();
    const gaveUp = queue.acquire('p', quitter.signal);
    quitter.abort();
    expect(await gaveUp).toBe('cancelled');
    let third = false;
    const next = queue.acquire('p').then((turn) => {
      third = true;
      return turn;
    });
    // The queue is promises only (no timer): once the microtask queue is empty, a turn handed out wrongly would have been.
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false); // still behind the running turn
    running.release();
    const turn = await next;
    if (typeof turn === 'string') throw new Error('expected a turn');
    turn.release();
    await until(() => queue.size === 0, 'the queue to empty');
  });
});
