// The client's state has one writer (state.ts): typed actions into one pure reducer, `online` decided there alone,
// the storage kind held once (in the environment), and listeners that cannot break each other.
import { describe, expect, it } from 'vitest';
import { initialEnvironment } from '../../src/client/environment.js';
import type { SendResult } from '../../src/client/send.js';
import { createClientState, reduce, storageOf, type Action, type ClientState } from '../../src/client/state.js';

const initial: ClientState = {
  online: true,
  deadLetterCount: 0,
  authRequired: false,
  deploymentRefused: false,
  environment: initialEnvironment('indexeddb'),
  closed: false,
  loaded: false,
};
const run = (actions: Action[], from = initial) => actions.reduce(reduce, from);
const noAnswer: SendResult = { outcome: 'retry', reason: 'network', noAnswer: true };
const relayRetry: SendResult = { outcome: 'retry', reason: 'relay_busy' };
const held: SendResult = { outcome: 'retry', reason: 'deployment', status: 403, refused: { status: 403, message: 'HTTP 403' } };

describe('online, decided in the reducer alone', () => {
  it.each<[string, Action[], boolean]>([
    ['a batch without an answer', [{ type: 'batch', results: [noAnswer] }], false],
    [
      "then the relay's own retry (an answer)",
      [
        { type: 'batch', results: [noAnswer] },
        { type: 'batch', results: [relayRetry] },
      ],
      true,
    ],
    [
      'a token failure says nothing of the network',
      [
        { type: 'batch', results: [noAnswer] },
        { type: 'batch', results: [{ outcome: 'auth', error: 1 }] },
      ],
      false,
    ],
    [
      'a refusal about the deployment is an answer',
      [
        { type: 'connection', online: false },
        { type: 'batch', results: [held] },
      ],
      true,
    ],
    ['a call without an answer', [{ type: 'call', answered: false }], false],
    [
      "the browser's offline, then online",
      [
        { type: 'connection', online: false },
        { type: 'connection', online: true },
      ],
      true,
    ],
  ])('%s', (_, actions, online) => expect(run(actions).online).toBe(online));
});

describe('the pauses', () => {
  it('auth: required at the end of a drain, cleared by an award acknowledged or refused', () => {
    const paused = run([{ type: 'drain', outcome: 'auth' }]);
    expect(paused.authRequired).toBe(true);
    expect(run([{ type: 'batch', results: [relayRetry] }], paused).authRequired).toBe(true);
    expect(run([{ type: 'batch', results: [{ outcome: 'rejected', status: 400, message: 'x' }] }], paused).authRequired).toBe(false);
  });
  it('a held queue: set by a refused drain, cleared by an award through or an empty queue', () => {
    const refused = run([{ type: 'drain', outcome: 'refused' }]);
    expect(refused.deploymentRefused).toBe(true);
    expect(run([{ type: 'batch', results: [held] }], refused).deploymentRefused).toBe(true);
    expect(run([{ type: 'batch', results: [{ outcome: 'ok' }] }], refused).deploymentRefused).toBe(false);
    expect(run([{ type: 'drain', outcome: 'drained' }], refused).deploymentRefused).toBe(false);
  });
});

it('dead letters: counted, and added at once', () => {
  expect(
    run([
      { type: 'dead-counted', count: 3 },
      { type: 'dead-added', count: 2 },
    ]).deadLetterCount,
  ).toBe(5);
});

it('the same object when nothing changed (useSyncExternalStore compares by reference)', () => {
  expect(reduce(initial, { type: 'connection', online: true })).toBe(initial);
  expect(reduce(initial, { type: 'drain', outcome: 'drained' })).toBe(initial);
});

it("the storage kind is held once: the snapshot's storage is the environment's", () => {
  expect(storageOf(initialEnvironment('indexeddb'))).toBe('indexeddb');
  expect(storageOf(initialEnvironment('memory', 'option'))).toBe('memory');
  expect(storageOf(initialEnvironment('memory', 'quota'))).toBe('degraded');
  expect(storageOf(initialEnvironment('memory', 'unavailable'))).toBe('degraded');
});

it('a listener that throws does not keep the others from hearing', async () => {
  const store = createClientState(initial);
  const heard: boolean[] = [];
  const uncaught: unknown[] = [];
  const original = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (fn) =>
    original(() => {
      try {
        fn();
      } catch (error) {
        uncaught.push(error);
      }
    });
  try {
    store.listen(() => {
      throw new Error('a broken listener');
    });
    store.listen((next) => heard.push(next.online));
    store.dispatch({ type: 'connection', online: false });
    await Promise.resolve();
  } finally {
    globalThis.queueMicrotask = original;
  }
  expect(heard).toEqual([false]);
  expect(String(uncaught[0])).toContain('a broken listener');
});
