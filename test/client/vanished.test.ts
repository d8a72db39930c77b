// @vitest-environment happy-dom
import 'fake-indexeddb/auto';
import { afterEach, expect, it } from 'vitest';
import { storageLayout } from '../../src/client/defaults.js';
import { pointsKey } from '../../src/client/pair.js';
import { idbKV } from '../../src/client/store.js';
import type { PendingAward } from '../../src/client/types.js';
import { fakeRelay, json, testClients, uniqueName, until } from './fake-relay.js';

// Another tab is played by hand here: its records go into the store and its messages on the channel when the test
// says, so the window between its deletes landing and its 'done' arriving can be held open.

const { client, closeAll } = testClients();
const channels: BroadcastChannel[] = [];
afterEach(async () => {
  for (const c of channels.splice(0)) c.close();
  await closeAll();
});

it("an award gone from the store before its 'done' came, then read, is not counted twice when the word comes (found by the model test; main a0b4a06 showed 2x)", async () => {
  const storageName = uniqueName();
  const layout = storageLayout(storageName);
  const award: PendingAward = {
    questId: 'quest-1',
    serviceUserId: 'player-1',
    eventPoints: 7,
    idempotencyKey: crypto.randomUUID(),
    queuedAt: Date.now(),
    seq: 1,
  };
  const ledger: PendingAward[] = [];
  const summary = () => ({
    totalPoints: ledger.reduce((s, a) => s + a.eventPoints, 0),
    history: ledger.map((a) => ({
      createdAt: new Date().toISOString(),
      eventPoints: a.eventPoints,
      eventName: 'DefaultPointsEvent',
      eventDescription: '',
    })),
  });
  const relay = fakeRelay((req) => (req.method === 'GET' ? json(200, { success: true, data: summary() }) : json(503, {})));
  const qp = client({ fetch: relay.fetch, storageName });
  await qp.pending();
  const other = new BroadcastChannel(layout.channel);
  channels.push(other);
  const queue = idbKV<PendingAward>(layout.outbox);
  // The other tab commits the award and says so.
  await queue.setMany([[award.idempotencyKey, award]]);
  other.postMessage({ t: 'add', recs: [award] });
  await until(() => qp.getSnapshot().queueSize === 1);
  // It sends it (the service applies it) and deletes it; its 'done' is not here yet.
  ledger.push(award);
  await queue.delMany([award.idempotencyKey]);
  expect(await qp.pending()).toEqual([]);
  expect((await qp.fetchPoints()).totalPoints).toBe(7);
  // The word comes: settled elsewhere, already counted by the read.
  const told = new Promise((resolve) => qp.once('award:sent', resolve));
  other.postMessage({ t: 'done', ok: [award.idempotencyKey], dead: [] });
  await told;
  expect(qp.viewPoints().totalPoints).toBe(7);
  expect((await qp.fetchPoints()).totalPoints).toBe(7);
});

// OPEN DEFECT, kept as its record: the fix tried (commit 0a3ff95: such an award not counted as sent, its pair read
// again) made the model fail at once elsewhere (seed -2046944116, sequence 74: 6 shown, 5 in the ledger: the other
// tabs' reads then no longer absorb it) and was reverted. it.fails: this breaks when the defect is fixed.
it.fails("another tab's award already in an accepted read when its 'add' comes is not counted twice when its 'done' comes (found by the grown model, seed -977515051: 46 shown, 30 in the ledger)", async () => {
  const storageName = uniqueName();
  const layout = storageLayout(storageName);
  const award: PendingAward = {
    questId: 'quest-1',
    serviceUserId: 'player-1',
    eventPoints: 7,
    idempotencyKey: crypto.randomUUID(),
    queuedAt: Date.now(),
    seq: 1,
  };
  const ledger: PendingAward[] = [];
  const summary = () => ({
    totalPoints: ledger.reduce((s, a) => s + a.eventPoints, 0),
    history: ledger.map((a) => ({
      createdAt: new Date().toISOString(),
      eventPoints: a.eventPoints,
      eventName: 'DefaultPointsEvent',
      eventDescription: '',
    })),
  });
  const relay = fakeRelay((req) => (req.method === 'GET' ? json(200, { success: true, data: summary() }) : json(503, {})));
  const qp = client({ fetch: relay.fetch, storageName });
  await qp.pending();
  const other = new BroadcastChannel(layout.channel);
  channels.push(other);
  // The other tab commits the award and sends it (the service applies it) before its 'add' reaches this tab, whose
  // read holds the award already.
  const queue = idbKV<PendingAward>(layout.outbox);
  await queue.setMany([[award.idempotencyKey, award]]);
  ledger.push(award);
  expect((await qp.fetchPoints()).totalPoints).toBe(7);
  other.postMessage({ t: 'add', recs: [award] });
  await until(() => qp.getSnapshot().queueSize === 1);
  await queue.delMany([award.idempotencyKey]);
  const told = new Promise((resolve) => qp.once('award:sent', resolve));
  other.postMessage({ t: 'done', ok: [award.idempotencyKey], dead: [] });
  await told;
  expect(qp.viewPoints().totalPoints).toBe(7);
  // A third tab's read, taken before the word came (it absorbed nothing of this award), adopted here.
  const adopted = new Promise((resolve) => qp.once('points:changed', resolve));
  other.postMessage({ t: 'points', pair: pointsKey('quest-1', 'player-1'), summary: summary(), absorbed: [] });
  await adopted;
  expect(qp.viewPoints().totalPoints).toBe(7);
});

it("the snapshot and the views follow the store when a reload finds an award gone or another tab's award there (not only when a message comes)", async () => {
  const storageName = uniqueName();
  const layout = storageLayout(storageName);
  const award: PendingAward = {
    questId: 'quest-1',
    serviceUserId: 'player-1',
    eventPoints: 7,
    idempotencyKey: crypto.randomUUID(),
    queuedAt: Date.now(),
    seq: 1,
  };
  const relay = fakeRelay((req) => (req.method === 'GET' ? json(200, { success: true, data: { totalPoints: 0, history: [] } }) : json(503, {})));
  const qp = client({ fetch: relay.fetch, storageName });
  await qp.pending();
  const queue = idbKV<PendingAward>(layout.outbox);
  // Another tab's award, found in the store by a reload (its 'add' never came: that tab crashed first).
  await queue.setMany([[award.idempotencyKey, award]]);
  expect(await qp.pending()).toHaveLength(1);
  await until(() => qp.getSnapshot().queueSize === 1);
  expect(qp.viewPoints().pendingPoints).toBe(7);
  // Gone from the store (sent by a tab that died before telling): the reload takes it out of the queue.
  await queue.delMany([award.idempotencyKey]);
  expect(await qp.pending()).toEqual([]);
  await until(() => qp.getSnapshot().queueSize === 0, 1000);
  expect(qp.viewPoints().pendingPoints).toBe(0);
});
