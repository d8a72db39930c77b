// The relay's idempotency record (issue 29): exactly-once past the service's own memory of a key.
import { describe, expect, it, vi } from 'vitest';
import { buildEmulator } from '../../src/emulator/app.js';
import { createDurableObjectRecordStore, IdempotencyRecords, type DurableObjectStorageLike } from '../../src/relay/durable-object-records.js';
import { createMemoryRecordStore, createRelay, type IdempotencyRecordStore } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET, token } from '../helpers/fixtures.js';
import { caller } from './helpers.js';

const KEY = '0b6c3c62-6f0e-4a57-9b0a-2f6f3a4b5c6d';
const SERVICE = 'http://service.test';

/**
 * The emulator (idempotency TTL 1 s, its clock in the test's hands) behind a relay, with or without the record. The
 * next award can be made to lose its acknowledgement: applied, then the connection dropped (the emulator's
 * lost-acknowledgement fault, mode 'drop').
 */
function stack(record: IdempotencyRecordStore | undefined) {
  let now = Date.parse('2026-11-25T12:00:00Z');
  const { app: emulator, core } = buildEmulator({ apiKeys: [API_KEY], idempotencyTtlMs: 1000, now: () => now });
  let dropNext = false;
  let awardsSent = 0;
  const relay = createRelay({
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: OPEN_POLICY,
    logger: () => {},
    upstream: {
      url: SERVICE,
      apiKey: API_KEY,
      retryDelayMs: 1,
      fetch: async (request) => {
        if (request.method === 'POST') awardsSent++;
        if (!dropNext) return emulator.fetch(request);
        dropNext = false;
        core.faults.set({ lostAckRate: 1, lostAckMode: 'drop' });
        try {
          return await emulator.fetch(request);
        } finally {
          core.faults.clear();
        }
      },
    },
    ...(record ? { idempotency: { store: record } } : {}),
  });
  const ledger = async () => {
    const response = await emulator.fetch(new Request(`${SERVICE}/group-quests/q/points/alice`, { headers: { API_KEY } }));
    return ((await response.json()) as { data: { history: unknown[] } }).data.history.length;
  };
  return {
    call: caller(relay.fetch),
    ledger,
    loseNextAck: () => (dropNext = true),
    advance: (ms: number) => (now += ms),
    now: () => now,
    awardsSent: () => awardsSent,
  };
}

async function awardTwice(record: boolean) {
  const clock = { now: 0 };
  const s = stack(record ? createMemoryRecordStore({ now: () => clock.now }) : undefined);
  clock.now = s.now();
  const t = await token({ sub: 'alice' });
  const award = { serviceUserId: 'alice', eventPoints: 5 };
  s.loseNextAck();
  // Applied, its acknowledgement dropped; the relay's own resend (same key, within the service's 1 s) got the replay.
  const first = await s.call('POST', '/group-quests/q/points', { token: t, body: award, headers: { IDEMPOTENCY_KEY: KEY } });
  expect(first.status).toBe(200);
  // The player's copy of that answer is lost too (the game closed): the SDK resends after the service forgot the key.
  clock.now = s.advance(2000);
  const again = await s.call('POST', '/group-quests/q/points', { token: t, body: award, headers: { IDEMPOTENCY_KEY: KEY } });
  expect(again.status).toBe(200);
  return { ledger: await s.ledger(), sent: s.awardsSent(), replayed: again.headers.get('idempotent-replayed') };
}

describe('the idempotency record', () => {
  it('an award applied, its acknowledgement lost, resent after the service forgot the key: once with the record, twice without', async () => {
    const withRecord = await awardTwice(true);
    const without = await awardTwice(false);
    console.log(`retention test: ledger holds ${withRecord.ledger} with the record, ${without.ledger} without`);
    expect(withRecord).toEqual({ ledger: 1, sent: 2, replayed: 'true' });
    // The control: the window really was past the service's memory.
    expect(without.ledger).toBe(2);
    expect(without.sent).toBe(3);
  });

  it('the same key with another award is refused 422 from the record, the service not called', async () => {
    const clock = { now: 0 };
    const s = stack(createMemoryRecordStore({ now: () => clock.now }));
    clock.now = s.now();
    const t = await token({ sub: 'alice' });
    const headers = { IDEMPOTENCY_KEY: KEY };
    expect((await s.call('POST', '/group-quests/q/points', { token: t, body: { serviceUserId: 'alice', eventPoints: 5 }, headers })).status).toBe(
      200,
    );
    clock.now = s.advance(2000);
    const other = await s.call('POST', '/group-quests/q/points', { token: t, body: { serviceUserId: 'alice', eventPoints: 6 }, headers });
    expect([other.status, other.json.message]).toEqual([
      422,
      'IDEMPOTENCY_KEY was already used with a different request; use a new key for a new award',
    ]);
    expect(s.awardsSent()).toBe(1);
  });

  it('a batch answers recorded awards ok from one lookup of every key', async () => {
    const gets: number[] = [];
    const inner = createMemoryRecordStore();
    const store: IdempotencyRecordStore = {
      get: (keys, owner) => {
        gets.push(keys.length);
        return inner.get(keys, owner);
      },
      set: (entries, ttl, owner) => inner.set(entries, ttl, owner),
    };
    const s = stack(store);
    const t = await token({ sub: 'alice' });
    const keys = [KEY, '1b6c3c62-6f0e-4a57-9b0a-2f6f3a4b5c6d', '2b6c3c62-6f0e-4a57-9b0a-2f6f3a4b5c6d'];
    const awards = keys.map((idempotencyKey, i) => ({ questId: 'q', serviceUserId: 'alice', eventPoints: i + 1, idempotencyKey }));
    const first = await s.call('POST', '/batch/points', { token: t, body: { awards } });
    expect(first.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok', 'ok']);
    s.advance(2000);
    const again = await s.call('POST', '/batch/points', { token: t, body: { awards } });
    expect(again.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(gets).toEqual([3, 3]);
    expect(s.awardsSent()).toBe(3);
    expect(await s.ledger()).toBe(3);
  });

  it('the memory store forgets a record after its TTL', async () => {
    let now = 0;
    const store = createMemoryRecordStore({ now: () => now });
    await store.set([['k', 'v']], 1000, 'p');
    expect(await store.get(['k', 'x'], 'p')).toEqual(['v', undefined]);
    now = 1000;
    expect(await store.get(['k'], 'p')).toEqual([undefined]);
  });

  it('the Durable Object store keeps records in storage, sharded, and forgets them after their TTL', async () => {
    const data = new Map<string, unknown>();
    let alarm: number | null = null;
    const storage: DurableObjectStorageLike = {
      get: async (keys) => new Map(keys.filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))])),
      put: async (entries) => {
        for (const [k, v] of Object.entries(entries)) data.set(k, structuredClone(v));
      },
      delete: async (keys) => keys.filter((k) => data.delete(k)).length,
      list: async ({ limit }) => new Map([...data].sort(([a], [b]) => (a < b ? -1 : 1)).slice(0, limit)),
      getAlarm: async () => alarm,
      setAlarm: async (at) => {
        alarm = at;
      },
    };
    // Every shard on the one object: what matters here is the protocol between the store and the object.
    const object = new IdempotencyRecords({ storage });
    const store = createDurableObjectRecordStore(
      { idFromName: (name) => name, get: () => ({ fetch: (url, init) => object.fetch(new Request(url, init)) }) },
      { shards: 4 },
    );
    await store.set(
      [
        ['a', 'ra'],
        ['b', 'rb'],
        ['c', 'rc'],
      ],
      50,
      'p',
    );
    expect(await store.get(['c', 'x', 'a', 'b'], 'p')).toEqual(['rc', undefined, 'ra', 'rb']);
    expect(alarm).not.toBeNull();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 50);
      expect(await store.get(['a'], 'p')).toEqual([undefined]);
      await object.alarm();
      expect(data.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
