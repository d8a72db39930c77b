// @vitest-environment happy-dom
import { initialEnvironment } from '../../src/client/environment.js';
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { QuestPointsEmitter } from '../../src/client/events.js';
import { createLive } from '../../src/client/live.js';
import { createNotifier } from '../../src/client/notify.js';
import { createClientState } from '../../src/client/state.js';
import { pointsKey } from '../../src/client/pair.js';
import { createTracked } from '../../src/client/tracked.js';
import type { Snapshot } from '../../src/client/types.js';
import { fakeRelay, json, testClients, until } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

const summary = () => json(200, { success: true, data: { totalPoints: 0, history: [] } });

describe('watchers and subscribers', () => {
  it('a throwing watchPoints callback is reported once per throw and starves no subscriber (main a0b4a06: the subscriber stopped at queueSize 0)', async () => {
    const qp = client({ fetch: fakeRelay((req) => (req.method === 'GET' ? summary() : json(503, {}))).fetch });
    const errors: string[] = [];
    qp.on('error', (e) => errors.push(e.during));
    const seen: number[] = [];
    const calls = { watcher: 0 };
    // Another player's pair: its events do not wait for the own pair's cache to load.
    qp.watchPoints('quest-1', 'player-2', () => {
      if (calls.watcher++ > 0) throw new Error('a game bug');
    });
    qp.subscribe((snapshot: Snapshot) => seen.push(snapshot.queueSize));
    qp.award({ eventPoints: 1, serviceUserId: 'player-2' });
    await until(() => seen.at(-1) === 1 && errors.length >= 1);
    qp.award({ eventPoints: 2, serviceUserId: 'player-2' });
    await until(() => seen.at(-1) === 2 && errors.length >= 2);
    expect(qp.getSnapshot().queueSize).toBe(2);
    expect(new Set(errors)).toEqual(new Set(['watchPoints']));
  });

  it('a throwing subscriber leaves the other subscribers and the watchers running', async () => {
    const qp = client({ fetch: fakeRelay((req) => (req.method === 'GET' ? summary() : json(503, {}))).fetch });
    const errors: unknown[] = [];
    qp.on('error', (e) => errors.push(e.error));
    qp.subscribe(() => {
      throw new Error('first');
    });
    const totals: number[] = [];
    const sizes: number[] = [];
    qp.subscribe((s) => sizes.push(s.queueSize));
    qp.watchPoints('quest-1', 'player-2', (view) => totals.push(view.totalPoints));
    qp.award({ eventPoints: 3, serviceUserId: 'player-2' });
    await until(() => sizes.at(-1) === 1 && totals.at(-1) === 3);
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('pairs read only while watched', () => {
  it('three pairs watched then unwatched are no longer read by the poll (main a0b4a06 read them on every poll)', async () => {
    const relay = fakeRelay((req) => (req.method === 'GET' ? summary() : undefined));
    const qp = client({ fetch: relay.fetch, pollIntervalMs: 20 });
    const others = ['a', 'b', 'c'];
    const stops = others.map((user) => qp.watchPoints('quest-1', user, () => {}));
    const readsOf = () => relay.seen.filter((r) => r.method === 'GET' && others.some((u) => r.path.endsWith(`/points/${u}`))).length;
    await until(() => readsOf() >= 3);
    for (const stop of stops) stop();
    // Reads already in flight may end; then none.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const after = readsOf();
    const own = () => relay.seen.filter((r) => r.method === 'GET' && r.path.endsWith('/points/player-1')).length;
    const ownBefore = own();
    // Several polls: the own pair is read on each, the unwatched ones never.
    await until(() => own() >= ownBefore + 3);
    expect(readsOf()).toBe(after);
    expect(Object.keys(qp.getSnapshot().points)).toEqual([pointsKey('quest-1', 'player-1')]);
  });

  it('a pair state is released after the grace that follows its last unwatch, and viewPoints of an unwatched pair does not keep one', async () => {
    const live = createLive(() => [], 100);
    const tracked = createTracked({ own: 'own', release: live.release, graceMs: 10 });
    tracked.watch('a');
    tracked.watch('a');
    live.view('a');
    tracked.unwatch('a');
    live.view('b');
    tracked.used('b');
    await new Promise((resolve) => setTimeout(resolve, 30));
    // 'a' is still watched once; 'b' was only viewed.
    expect(live.size()).toBe(1);
    tracked.unwatch('a');
    // Watched again within the grace: kept.
    tracked.watch('a');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(live.size()).toBe(1);
    tracked.unwatch('a');
    await until(() => live.size() === 0);
    expect(tracked.pairs()).toEqual(['own']);
  });

  it('pairs viewed for points:changed only (awards to players nobody watches) are released too', async () => {
    const live = createLive(() => [], 100);
    const tracked = createTracked({ own: undefined, release: live.release, graceMs: 300 });
    const events = new QuestPointsEmitter();
    const changedPairs: string[] = [];
    events.on('points:changed', ({ view }) => changedPairs.push(view.serviceUserId));
    const state = createClientState({
      online: true,
      deadLetterCount: 0,
      authRequired: false,
      deploymentRefused: false,
      environment: initialEnvironment('memory', 'option'),
      closed: false,
      loaded: true,
    });
    const notifier = createNotifier({ events, live, queueSize: () => 0, state, used: tracked.used, pairs: tracked.pairs });
    for (const user of ['a', 'b', 'c']) notifier.changed(pointsKey('q', user));
    await Promise.resolve();
    expect(changedPairs).toEqual(['a', 'b', 'c']);
    expect(live.size()).toBe(3);
    await until(() => live.size() === 0);
  });
});
