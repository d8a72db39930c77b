import { describe, expect, it, vi } from 'vitest';
import { createMemoryLedgerStore, type LedgerDraft, type LedgerEntry, type LogRecord } from '../../src/relay/index.js';
import { createRelayLedger } from '../../src/relay/economy/ledger.js';
import { noMetrics, relayMetrics } from '../../src/relay/metrics.js';
import { token, upstreamKey } from '../helpers/fixtures.js';
import { fakeRelay, uuid } from './helpers.js';
import { draft, ledgerStoreSuite } from './ledger-suite.js';

ledgerStoreSuite('memory', () => createMemoryLedgerStore());

describe('createMemoryLedgerStore', () => {
  it('assigns ordered ids, reads pages with a cursor and filters', async () => {
    let now = 1_000;
    const store = createMemoryLedgerStore({ now: () => now });
    const ids = await store.append([
      draft(1_000),
      draft(1_000, { player: 'bob', serviceUserId: 'bob' }),
      draft(1_000, { outcome: 'refused', code: 'budget' }),
    ]);
    now = 2_000;
    ids.push(...(await store.append([draft(2_000, { questId: 'q2' })])));
    expect(ids).toEqual(['1000-0', '1000-1', '1000-2', '2000-0']);
    const first = await store.read({ limit: 2 });
    expect(first.entries.map((e) => e.id)).toEqual(['1000-0', '1000-1']);
    expect(first.next).toBe('1000-1');
    const second = await store.read({ limit: 2, after: first.next as string });
    expect(second.entries.map((e) => e.id)).toEqual(['1000-2', '2000-0']);
    expect(second.next).toBeUndefined();
    expect((await store.read({ player: 'bob' })).entries.map((e) => e.id)).toEqual(['1000-1']);
    expect((await store.read({ outcome: 'refused' })).entries[0]?.code).toBe('budget');
    expect((await store.read({ questId: 'q2' })).entries.map((e) => e.id)).toEqual(['2000-0']);
    expect((await store.read({ from: 1_500 })).entries.map((e) => e.id)).toEqual(['2000-0']);
    expect((await store.read({ to: 1_500 })).entries).toHaveLength(3);
  });

  it('keeps at most maxEntries and drops what is older than the retention', async () => {
    let now = 0;
    const store = createMemoryLedgerStore({ maxEntries: 3, retentionMs: 1_000, now: () => now });
    await store.append([draft(0), draft(0), draft(0), draft(0), draft(0)]);
    expect((await store.read({})).entries.map((e) => e.id)).toEqual(['0-2', '0-3', '0-4']);
    now = 1_500;
    await store.append([draft(1_500)]);
    expect((await store.read({})).entries.map((e) => e.id)).toEqual(['1500-0']);
  });
});

describe('the relay ledger', () => {
  it('appends the decisions of one tick in one call and tells its listeners the stored entries', async () => {
    const memory = createMemoryLedgerStore();
    const calls: number[] = [];
    const store = {
      ...memory,
      append: (drafts: readonly LedgerDraft[]) => {
        calls.push(drafts.length);
        return memory.append(drafts);
      },
    };
    const ledger = createRelayLedger({ store }, () => {}, relayMetrics(noMetrics));
    const heard: LedgerEntry[] = [];
    ledger.subscribe((entries) => heard.push(...entries));
    for (let i = 0; i < 10; i++) ledger.record(draft(i));
    await ledger.flush();
    expect(calls).toEqual([10]);
    expect(heard.map((e) => e.id)).toHaveLength(10);
    expect(heard[0]?.id).toMatch(/^\d+-0$/);
  });

  it('a failing store never throws, is counted, and is said at most once per 10 s', async () => {
    const logs: LogRecord[] = [];
    const counted: [string, number][] = [];
    const failing = { append: () => Promise.reject(new Error('down')), read: () => Promise.reject(new Error('down')) };
    const ledger = createRelayLedger(
      { store: failing },
      (r) => logs.push(r),
      relayMetrics({ ...noMetrics, ledger: (result, n) => counted.push([result, n]) }),
    );
    ledger.record(draft(0));
    await ledger.flush();
    ledger.record(draft(1));
    ledger.record(draft(2));
    await ledger.flush();
    expect(counted).toEqual([
      ['failed', 1],
      ['failed', 2],
    ]);
    expect(logs.filter((r) => r.msg.startsWith('ledger:'))).toHaveLength(1);
  });
});

describe('the pipeline records every decision', () => {
  it('forwarded then acknowledged, refused with its code, failed for a service error; replays are not recorded again', async () => {
    const store = createMemoryLedgerStore();
    const { call } = fakeRelay({
      ledger: { store },
      reply: (request) =>
        (request.body as { eventPoints: number }).eventPoints === 7 ? new Response('{}', { status: 500 }) : Response.json({ success: true }),
    });
    const alice = await token({ sub: 'alice' });
    const key = uuid();
    const ok = await call('POST', '/group-quests/q1/points', {
      token: alice,
      headers: { IDEMPOTENCY_KEY: key },
      body: { serviceUserId: 'alice', eventPoints: 5, eventName: 'coin' },
    });
    expect(ok.status).toBe(200);
    const refused = await call('POST', '/group-quests/q1/points', { token: alice, body: { serviceUserId: 'alice', eventPoints: 100_000 } });
    expect(refused.status).toBe(422);
    const failed = await call('POST', '/group-quests/q1/points', { token: alice, body: { serviceUserId: 'alice', eventPoints: 7 } });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    await expect
      .poll(async () => (await store.read({})).entries.map((e) => e.outcome))
      .toEqual(['forwarded', 'acknowledged', 'refused', 'forwarded', 'failed']);
    const [forwarded, acknowledged, policy] = (await store.read({})).entries as LedgerEntry[];
    expect(acknowledged).toMatchObject({
      player: 'alice',
      questId: 'q1',
      eventName: 'coin',
      eventPoints: 5,
      key: upstreamKey('alice', key),
      status: 200,
    });
    expect(forwarded?.key).toBe(acknowledged?.key);
    expect(policy).toMatchObject({ outcome: 'refused', code: 'policy', status: 422, eventName: 'DefaultPointsEvent' });
  });
});

describe('on Cloudflare Workers', () => {
  it("hands the ledger's append to the request's waitUntil: the isolate may stop once the answer is sent", async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    try {
      const store = createMemoryLedgerStore();
      const { app } = fakeRelay({ ledger: { store } });
      const waited: Promise<unknown>[] = [];
      const request = new Request('http://relay.test/group-quests/q1/points', {
        method: 'POST',
        headers: { authorization: `Bearer ${await token({ sub: 'alice' })}`, 'content-type': 'application/json' },
        body: JSON.stringify({ serviceUserId: 'alice', eventPoints: 1 }),
      });
      const answer = await app.fetch(request, {}, {
        waitUntil: (promise: Promise<unknown>) => waited.push(promise),
        passThroughOnException: () => {},
      } as never);
      expect(answer.status).toBe(200);
      expect(waited).toHaveLength(1);
      await Promise.all(waited);
      expect((await store.read({})).entries.map((e) => e.outcome)).toEqual(['forwarded', 'acknowledged']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
