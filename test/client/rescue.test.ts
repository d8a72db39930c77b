// @vitest-environment happy-dom
// The pagehide rescue: awards whose IndexedDB commit is not known complete when the page hides go to localStorage,
// and the next page merges them into the outbox.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQuestPoints, type PendingAward, type QuestPoints } from '../../src/client/index.js';
import { batchOf, fakeRelay, json, jwt, uniqueName, until } from './fake-relay.js';

const open: QuestPoints[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  await Promise.all(open.splice(0).map((c) => c.close()));
  localStorage.clear();
});

const down = () => fakeRelay(() => json(503, { success: false, message: 'down' }));

function client(storageName: string, relay = down()) {
  const qp = createQuestPoints({
    relayUrl: '/api',
    getToken: () => jwt('player-1', Date.now() / 1000 + 3600),
    questId: 'quest-1',
    serviceUserId: 'player-1',
    storageName,
    flushDelayMs: 1,
    backoff: { baseMs: 60_000, maxMs: 60_000 },
    fetch: relay.fetch,
  });
  open.push(qp);
  return qp;
}

const rescueKeys = (name: string) => Object.keys(localStorage).filter((k) => k.startsWith(`quest-points:${name}:rescue:`));
const rescued = (key: string): PendingAward[] => JSON.parse(localStorage.getItem(key)!);
const record = (idempotencyKey: string, eventPoints: number, seq = Date.now() * 1000): PendingAward => ({
  questId: 'quest-1',
  serviceUserId: 'player-1',
  eventPoints,
  idempotencyKey,
  queuedAt: Date.now(),
  seq,
});

describe('pagehide rescue', () => {
  it("pagehide in the award() task writes the uncommitted awards to this tab's key; the completed commit removes it", async () => {
    const name = uniqueName();
    const qp = client(name);
    const a = qp.award({ eventPoints: 1 });
    const b = qp.award({ eventPoints: 2, eventName: 'boss' });
    window.dispatchEvent(new Event('pagehide'));
    const [key, ...others] = rescueKeys(name);
    expect(others).toEqual([]);
    expect(key).toMatch(/:rescue:[0-9a-f-]{36}$/);
    expect(rescued(key!).map((r) => [r.idempotencyKey, r.eventPoints, r.eventName])).toEqual([
      [a.idempotencyKey, 1, undefined],
      [b.idempotencyKey, 2, 'boss'],
    ]);
    // The page survived (back/forward cache): once the commit completed, nothing is left to rescue.
    expect(await a.persisted).toBe(true);
    await until(() => rescueKeys(name).length === 0);
  });

  it('a pagehide before the page has read the outbox beacons nothing: what it knows is not the head of the queue', async () => {
    const name = uniqueName();
    // An earlier page left two awards queued.
    const earlier = client(name);
    const older = [earlier.award({ eventPoints: 1 }), earlier.award({ eventPoints: 2 })];
    expect(await Promise.all(older.map((a) => a.persisted))).toEqual([true, true]);
    await earlier.close();

    const relay = fakeRelay();
    const qp = client(name, relay);
    // Awarded and hidden in the first task: the start-up read of the outbox has not come back yet.
    const fresh = qp.award({ eventPoints: 3 });
    window.dispatchEvent(new Event('pagehide'));
    await until(async () => (await qp.pending()).length === 0);
    // Every batch starts at the oldest award still queued: the fresh one never went ahead of the earlier page's.
    const batches = relay.seen.filter((r) => r.path === '/api/batch/points').map((r) => batchOf(r).map((a) => a.eventPoints));
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) expect(batch[0]).toBe(1);
    expect(fresh.idempotencyKey).toBeTruthy();
  });

  it('a pagehide after the commit completed writes no rescue', async () => {
    const name = uniqueName();
    const qp = client(name);
    expect(await qp.award({ eventPoints: 1 }).persisted).toBe(true);
    window.dispatchEvent(new Event('pagehide'));
    expect(rescueKeys(name)).toEqual([]);
  });

  it('start-up merges every rescue of its storage name into the outbox, skipping known keys, then removes them', async () => {
    const name = uniqueName();
    // An award already queued and one already dead-lettered, by an earlier page.
    let refuse = true;
    const first = client(
      name,
      fakeRelay(() => json(refuse ? 422 : 503, { success: false, message: 'refused' })),
    );
    const refused = first.award({ eventPoints: 13 });
    expect(await refused.settled).toMatchObject({ outcome: 'rejected' });
    refuse = false;
    const queued = first.award({ eventPoints: 5 });
    expect(await queued.persisted).toBe(true);
    await first.close();

    const other = `quest-points:${uniqueName()}:rescue:x`;
    localStorage.setItem(`quest-points:${name}:rescue:tab-1`, JSON.stringify([record('lost-1', 7, 1), { ...record(queued.idempotencyKey, 99) }]));
    localStorage.setItem(`quest-points:${name}:rescue:tab-2`, JSON.stringify([record('lost-2', 8, 2), { ...record(refused.idempotencyKey, 13) }]));
    localStorage.setItem(`quest-points:${name}:rescue:tab-3`, 'not json');
    localStorage.setItem(other, JSON.stringify([record('elsewhere', 1)]));

    const next = client(name);
    const pending = await next.pending();
    expect(pending.map((r) => [r.idempotencyKey, r.eventPoints])).toEqual([
      ['lost-1', 7],
      ['lost-2', 8],
      [queued.idempotencyKey, 5], // as queued, not the rescue's copy
    ]);
    expect((await next.deadLetters()).map((d) => d.idempotencyKey)).toEqual([refused.idempotencyKey]);
    await until(() => rescueKeys(name).length === 0);
    expect(localStorage.getItem(other)).not.toBeNull();
  });

  it('localStorage throwing: award() and pagehide work, the award is committed as usual', async () => {
    const name = uniqueName();
    // Every use of localStorage throws, as with disabled storage or an opaque origin. (happy-dom binds Storage
    // methods to the instance, so a spy on Storage.prototype would never be reached.)
    const setItem = vi.fn(() => {
      throw new DOMException('quota', 'QuotaExceededError');
    });
    const denied = () => {
      throw new DOMException('denied', 'SecurityError');
    };
    vi.stubGlobal(
      'localStorage',
      new Proxy({ setItem }, { get: (target, prop) => (prop === 'setItem' ? target.setItem : denied()), ownKeys: denied }),
    );
    const qp = client(name);
    const { persisted } = qp.award({ eventPoints: 1 });
    // A listener's throw never leaves dispatchEvent: the page reports it as an 'error' event, which must not come.
    const reported: unknown[] = [];
    const report = (event: ErrorEvent) => reported.push(event.error);
    window.addEventListener('error', report);
    window.dispatchEvent(new Event('pagehide'));
    window.removeEventListener('error', report);
    expect(reported).toEqual([]);
    // The rescue did try to write the uncommitted award, and its throw was contained.
    expect(setItem).toHaveBeenCalledWith(expect.stringContaining(`quest-points:${name}:rescue:`), expect.any(String));
    expect(await persisted).toBe(true);
    expect((await qp.pending()).length).toBe(1);
  });

  it('the memory store writes no rescue', async () => {
    const name = uniqueName();
    const qp = createQuestPoints({
      relayUrl: '/api',
      getToken: () => 't',
      questId: 'q',
      serviceUserId: 'p',
      storageName: name,
      storage: 'memory',
      fetch: down().fetch,
    });
    open.push(qp);
    qp.award({ eventPoints: 1 });
    window.dispatchEvent(new Event('pagehide'));
    expect(rescueKeys(name)).toEqual([]);
  });
});

describe('a rescue never re-sends an acknowledged award on a later visit', () => {
  /** A relay that answers or not, and counts each key it saw. */
  function countingRelay() {
    const state = { up: false };
    const relay = fakeRelay(() => (state.up ? undefined : json(503, { success: false, message: 'down' })));
    const sends = (key: string) => relay.sentKeys().filter((k) => k === key).length;
    return { relay, state, sends };
  }

  it("an award rescued while storage failed, then acknowledged by this page, leaves the page's rescue", async () => {
    const name = uniqueName();
    const { relay, state, sends } = countingRelay();
    // IndexedDB refuses every write for this storage name (a full disk): the award is kept in memory only.
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.transaction.db.name.startsWith(`${name}:`)) throw new DOMException('quota exceeded', 'QuotaExceededError');
      return put.apply(this, args);
    };
    try {
      const qp = client(name, relay);
      const { idempotencyKey, persisted, settled } = qp.award({ eventPoints: 4 });
      expect(await persisted).toBe(false);
      // The page hides and comes back (back/forward cache): the award only this page holds is rescued.
      window.dispatchEvent(new Event('pagehide'));
      expect(rescueKeys(name).flatMap((k) => rescued(k).map((r) => r.idempotencyKey))).toEqual([idempotencyKey]);
      state.up = true;
      await qp.flush();
      expect((await settled).outcome).toBe('sent');
      // The rescue forgets it once its chunk has loaded (the proof is the count of sends below, on the next visit).
      await until(() => rescueKeys(name).flatMap((k) => rescued(k)).length === 0, 1000).catch(() => {});
      await qp.close();
    } finally {
      IDBObjectStore.prototype.put = put;
    }
    // A later visit merges what rescues are left: the acknowledged award is not sent again.
    const key = relay.sentKeys()[0]!;
    const before = sends(key);
    const next = client(name, relay);
    await next.pending();
    await next.flush();
    expect(await next.pending()).toEqual([]);
    expect(sends(key) - before).toBe(0);
    expect(rescueKeys(name)).toEqual([]);
  });

  it('an award another page rescued and this page acknowledged leaves that rescue: the next visit does not send it again', async () => {
    const name = uniqueName();
    const { relay, state, sends } = countingRelay();
    // This page is open (its start-up merge is done) when another page dies with an award it rescued, whose commit
    // did land: this page sends it from the store.
    const open = client(name, relay);
    await open.pending();
    const award = record(crypto.randomUUID(), 6, 1);
    const other = createQuestPoints({
      relayUrl: '/api',
      getToken: () => jwt('player-1', Date.now() / 1000 + 3600),
      questId: 'quest-1',
      serviceUserId: 'player-1',
      storageName: name,
      fetch: down().fetch,
    });
    await other.pending();
    await other.close();
    localStorage.setItem(`quest-points:${name}:rescue:dead-tab`, JSON.stringify([award]));
    const { idbKV } = await import('../../src/client/store.js');
    await idbKV<PendingAward>(`${name}:outbox`).setMany([[award.idempotencyKey, award]]);
    state.up = true;
    await open.flush();
    expect(await open.pending()).toEqual([]);
    expect(sends(award.idempotencyKey)).toBe(1);
    await until(() => rescueKeys(name).length === 0, 1000).catch(() => {});
    await open.close();
    // The next visit: nothing to merge, nothing sent again.
    const next = client(name, relay);
    await next.pending();
    await next.flush();
    expect(await next.pending()).toEqual([]);
    expect(sends(award.idempotencyKey)).toBe(1);
  });
});
