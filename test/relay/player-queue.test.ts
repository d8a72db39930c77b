// One player's awards, one after another (player-queue.ts): the turn, its queue, and giving up while waiting.
import { describe, expect, it } from 'vitest';
import { Cancel } from '../../src/kit/signal.js';
import { createPlayerQueue, type Turn } from '../../src/relay/player-queue.js';

const turn = (value: Turn | 'busy' | 'cancelled'): Turn => {
  if (typeof value === 'string') throw new Error(`no turn: ${value}`);
  return value;
};

describe('the player queue', () => {
  it('grants turns in arrival order, one at a time per player, and other players never wait', async () => {
    const queue = createPlayerQueue();
    const order: string[] = [];
    const first = turn(await queue.acquire('p'));
    const granted = (name: string) => (t: Turn | 'busy' | 'cancelled') => {
      order.push(name);
      return turn(t);
    };
    const second = queue.acquire('p').then(granted('second'));
    const third = queue.acquire('p').then(granted('third'));
    const other = turn(await queue.acquire('q'));
    expect(order).toEqual([]);
    first.release();
    (await second).release();
    (await third).release();
    expect(order).toEqual(['second', 'third']);
    other.release();
    expect(queue.size).toBe(0);
  });

  it('a waiter whose signal fires gives up its place; the one behind it is not held back by it', async () => {
    const queue = createPlayerQueue();
    const first = turn(await queue.acquire('p'));
    const cancel = new Cancel();
    const gaveUp = queue.acquire('p', cancel);
    const behind = queue.acquire('p');
    cancel.abort('deadline');
    expect(await gaveUp).toBe('cancelled');
    first.release();
    const next = turn(await behind);
    next.release();
    next.release();
    expect(queue.size).toBe(0);
    expect(await queue.acquire('p', cancel)).toBe('cancelled');
    expect(queue.size).toBe(0);
  });

  it('is bounded: past maxPlayers a new player is busy, a player already held still queues', async () => {
    const queue = createPlayerQueue(2);
    const a = turn(await queue.acquire('a'));
    turn(await queue.acquire('b'));
    expect(await queue.acquire('c')).toBe('busy');
    const again = queue.acquire('a');
    a.release();
    turn(await again).release();
    expect(queue.size).toBe(1);
  });
});
