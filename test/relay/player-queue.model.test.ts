// Model-based test of the player queue and the bounded map (fast-check commands): any interleaving of acquires,
// releases, cancellations and microtask turns keeps one holder per player, grants in arrival order, and frees a player
// once nobody holds or waits; the map never exceeds its bound and never returns a value it was not last given.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cancel } from '../../src/kit/signal.js';
import { createLru } from '../../src/relay/lru.js';
import { createPlayerQueue, type PlayerQueue, type Turn } from '../../src/relay/player-queue.js';

interface Waiter {
  id: number;
  player: string;
  cancel: Cancel;
  /** What acquire() resolved with, once it has. */
  got?: Turn | 'busy' | 'cancelled';
  released?: boolean;
}

interface Model {
  /** Per player, the waiters not yet resolved cancelled or released, in arrival order (the first holds or will). */
  lines: Map<string, number[]>;
}

interface Real {
  queue: PlayerQueue;
  waiters: Waiter[];
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Holds after every command, once the microtasks ran: at most the first of each line holds, and it does. */
function check(model: Model, real: Real): void {
  for (const [player, line] of model.lines) {
    const holders = real.waiters.filter((w) => w.player === player && typeof w.got === 'object' && !w.released);
    expect(holders.map((w) => w.id)).toEqual(line.slice(0, 1));
  }
  expect(real.queue.size).toBe([...model.lines.values()].filter((line) => line.length > 0).length);
}

const drop = (model: Model, waiter: Waiter) => {
  const line = model.lines.get(waiter.player) ?? [];
  line.splice(line.indexOf(waiter.id), 1);
  if (line.length === 0) model.lines.delete(waiter.player);
};

class Acquire implements fc.AsyncCommand<Model, Real> {
  constructor(readonly player: string) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const waiter: Waiter = { id: real.waiters.length, player: this.player, cancel: new Cancel() };
    real.waiters.push(waiter);
    void real.queue.acquire(this.player, waiter.cancel).then((got) => {
      waiter.got = got;
    });
    model.lines.set(this.player, [...(model.lines.get(this.player) ?? []), waiter.id]);
    await settle();
    check(model, real);
  }
  toString = () => `acquire(${this.player})`;
}

/** Releases the current holder of a player's turn (the n-th player with a holder). */
class Release implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Model) => model.lines.size > 0;
  async run(model: Model, real: Real) {
    const players = [...model.lines.keys()];
    const player = players[this.pick % players.length] as string;
    const holder = real.waiters.find((w) => w.id === model.lines.get(player)?.[0]) as Waiter;
    (holder.got as Turn).release();
    // A second release changes nothing.
    (holder.got as Turn).release();
    holder.released = true;
    drop(model, holder);
    await settle();
    check(model, real);
  }
  toString = () => `release(#${this.pick})`;
}

/** Cancels a waiter still waiting (not the holder): it resolves cancelled and leaves the line. */
class CancelWaiting implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Model) => [...model.lines.values()].some((line) => line.length > 1);
  async run(model: Model, real: Real) {
    const waiting = [...model.lines.values()].flatMap((line) => line.slice(1));
    const waiter = real.waiters.find((w) => w.id === waiting[this.pick % waiting.length]) as Waiter;
    waiter.cancel.abort('gone');
    drop(model, waiter);
    await settle();
    expect(waiter.got).toBe('cancelled');
    check(model, real);
  }
  toString = () => `cancel(#${this.pick})`;
}

describe('player queue (model)', () => {
  it('one holder per player, turns in arrival order, cancelled waiters hold nobody back, idle players forgotten', async () => {
    const player = fc.constantFrom('a', 'b', 'c');
    const commands = fc.commands(
      [player.map((p) => new Acquire(p)), fc.nat(5).map((n) => new Release(n)), fc.nat(5).map((n) => new CancelWaiting(n))],
      { maxCommands: 40 },
    );
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        await fc.asyncModelRun(() => ({ model: { lines: new Map() }, real: { queue: createPlayerQueue(), waiters: [] } }), cmds);
      }),
      { numRuns: 200 },
    );
  });
});

describe('bounded map (property)', () => {
  it('never holds more than its bound; a read returns the last value written for that key, or nothing once evicted', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat(12), value: fc.integer() }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat(12) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.nat(12) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.array(op, { maxLength: 200 }), (max, ops) => {
        const lru = createLru<number, number>(max);
        const last = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            lru.set(o.key, o.value);
            last.set(o.key, o.value);
            // Just written: present (the new entry is never the one evicted), unless the bound keeps nothing.
            expect(lru.get(o.key)).toBe(max > 0 ? o.value : undefined);
          } else if (o.kind === 'delete') {
            lru.delete(o.key);
            last.delete(o.key);
          } else {
            const got = lru.get(o.key);
            if (got !== undefined) expect(got).toBe(last.get(o.key));
          }
          expect(lru.size).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 500 },
    );
  });
});
