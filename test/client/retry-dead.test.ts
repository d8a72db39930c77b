// @vitest-environment happy-dom
// retryDeadLetter() is idempotent: the retried award's key is derived from the dead letter's (UUIDv5), so any number
// of concurrent retries, in one tab or in several on one storage name, queue one award and apply it once.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { awardsIn, fakeRelay, json, testClients, uniqueName, until } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

/** A relay that refuses the awards of `refuse` (400, the award's own fault) and records every distinct key it applied. */
function refusingRelay(refuse: Set<number>) {
  const applied = new Map<string, number>();
  const relay = fakeRelay((req) => {
    if (req.method !== 'POST') return undefined;
    const awards = awardsIn(req);
    const keys = req.path.endsWith('/batch/points')
      ? (req.body as { awards: { idempotencyKey: string }[] }).awards.map((a) => a.idempotencyKey)
      : [req.headers['idempotency-key']!];
    const results = awards.map((a, i) => {
      const key = keys[i]!;
      if (refuse.has(a.eventPoints)) return { idempotencyKey: key, outcome: 'rejected', status: 400, message: 'refused' };
      applied.set(key, a.eventPoints);
      return { idempotencyKey: key, outcome: 'ok' };
    });
    if (!req.path.endsWith('/batch/points'))
      return results[0]!.outcome === 'ok' ? json(200, { success: true }) : json(400, { success: false, message: 'refused' });
    return json(200, { success: true, results });
  });
  return { ...relay, applied };
}

describe('retryDeadLetter is idempotent', () => {
  it('two calls at once in one client queue one award under one derived key, applied once', async () => {
    const refuse = new Set([5]);
    const relay = refusingRelay(refuse);
    const qp = client({ fetch: relay.fetch });
    const { idempotencyKey: old, settled } = qp.award({ eventPoints: 5 });
    expect((await settled).outcome).toBe('rejected');
    refuse.clear();
    const keys = await Promise.all([qp.retryDeadLetter(old), qp.retryDeadLetter(old)]);
    await until(async () => (await qp.pending()).length === 0 && relay.applied.size > 0);
    await qp.flush();
    // Applied once (c6b8ff8 applied it twice, under two new keys).
    expect(relay.applied.size).toBe(1);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]).not.toBe(old);
    expect([...relay.applied.keys()]).toEqual([keys[0]]);
    expect(await qp.deadLetters()).toEqual([]);
    expect(qp.getSnapshot().deadLetterCount).toBe(0);
  });

  it('two tabs on one storage name retrying the same letter at once apply it once, under the same key', async () => {
    const storageName = uniqueName();
    const refuse = new Set([5]);
    const relay = refusingRelay(refuse);
    const a = client({ fetch: relay.fetch, storageName });
    const { idempotencyKey: old, settled } = a.award({ eventPoints: 5 });
    expect((await settled).outcome).toBe('rejected');
    const b = client({ fetch: relay.fetch, storageName });
    await until(async () => (await b.deadLetters()).length === 1);
    refuse.clear();
    const keys = await Promise.all([a.retryDeadLetter(old), b.retryDeadLetter(old), a.retryDeadLetter(old), b.retryDeadLetter(old)]);
    await until(async () => (await a.pending()).length === 0 && (await b.pending()).length === 0 && relay.applied.size > 0);
    await Promise.all([a.flush(), b.flush()]);
    expect(relay.applied.size).toBe(1);
    expect(new Set(keys).size).toBe(1);
    expect([...relay.applied.keys()]).toEqual([keys[0]]);
    expect(await a.deadLetters()).toEqual([]);
    await until(() => a.getSnapshot().deadLetterCount === 0 && b.getSnapshot().deadLetterCount === 0);
  });

  it('a retried award refused again is a new letter; its retry derives a key of its own, and each retry applies once', async () => {
    const refuse = new Set([5]);
    const relay = refusingRelay(refuse);
    const qp = client({ fetch: relay.fetch });
    const { idempotencyKey: old, settled } = qp.award({ eventPoints: 5 });
    expect((await settled).outcome).toBe('rejected');
    const first = await qp.retryDeadLetter(old);
    await until(async () => (await qp.deadLetters()).some((d) => d.idempotencyKey === first));
    refuse.clear();
    const second = await qp.retryDeadLetter(first);
    expect(new Set([old, first, second]).size).toBe(3);
    await until(() => relay.applied.size > 0);
    expect([...relay.applied.keys()]).toEqual([second]);
    expect(await qp.deadLetters()).toEqual([]);
  });

  it('storage failing: the retried award is only in memory, so the letter stays until it is acknowledged (found by the model)', async () => {
    const storageName = uniqueName();
    const refuse = new Set([5]);
    const relay = refusingRelay(refuse);
    const qp = client({ fetch: relay.fetch, storageName });
    const { idempotencyKey: old, settled } = qp.award({ eventPoints: 5 });
    expect((await settled).outcome).toBe('rejected');
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.transaction.db.name.startsWith(`${storageName}:`)) throw new DOMException('quota exceeded', 'QuotaExceededError');
      return put.apply(this, args);
    };
    try {
      const before = relay.applied.size;
      refuse.clear();
      const derived = await qp.retryDeadLetter(old);
      // Kept in memory only: had the page closed now, the letter is what remains of the award.
      expect((await qp.deadLetters()).map((d) => d.idempotencyKey)).toContain(old);
      await until(() => relay.applied.has(derived));
      expect(relay.applied.size).toBe(before + 1);
      await until(async () => (await qp.deadLetters()).length === 0);
    } finally {
      IDBObjectStore.prototype.put = put;
    }
  });

  it('a key that is no dead letter (and no retried award of one) is refused', async () => {
    const qp = client({ fetch: fakeRelay().fetch });
    await expect(qp.retryDeadLetter('0a1b2c3d-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'invalid' });
  });
});
