// When the idempotency record is read and written (issue 34, found by reading): in the player's turn, so a duplicate
// waiting behind the first request reads what it recorded; an acknowledgement that lands after a batch's deadline is
// still recorded; and a record store that fails follows onStoreError like the counters ('closed': retry, never an
// award sent or acknowledged unrecorded).
import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../src/emulator/app.js';
import { createMemoryRecordStore, createRelay, type IdempotencyRecordStore, type RelayOptions } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET, token, upstreamKey } from '../helpers/fixtures.js';
import { caller } from './helpers.js';

const KEY = '0b6c3c62-6f0e-4a57-9b0a-2f6f3a4b5c6d';
const SERVICE = 'http://service.test';

/**
 * The emulator behind a relay with the record; the service forgets a key after 1 s of its own clock, which `forget()`
 * moves on by 2 s. `hook` runs after the service answered an award and before the relay reads the answer.
 */
function stack(options: { store?: IdempotencyRecordStore; relay?: Partial<RelayOptions>; hook?: (n: number) => Promise<void> | void } = {}) {
  let now = Date.parse('2026-11-25T12:00:00Z');
  const { app: emulator } = buildEmulator({ apiKeys: [API_KEY], idempotencyTtlMs: 1000, now: () => now });
  let sent = 0;
  const store = options.store ?? createMemoryRecordStore();
  const relay = createRelay({
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: OPEN_POLICY,
    logger: () => {},
    idempotency: { store },
    ...options.relay,
    upstream: {
      url: SERVICE,
      apiKey: API_KEY,
      retryDelayMs: 1,
      fetch: async (request) => {
        if (request.method !== 'POST') return emulator.fetch(request);
        const n = ++sent;
        const response = await emulator.fetch(request);
        await options.hook?.(n);
        return response;
      },
    },
  });
  const ledger = async () => {
    const response = await emulator.fetch(new Request(`${SERVICE}/group-quests/q/points/alice`, { headers: { API_KEY } }));
    return ((await response.json()) as { data: { history: unknown[] } }).data.history.length;
  };
  return { call: caller(relay.fetch), ledger, store, forget: () => (now += 2000), sent: () => sent };
}

const single = (call: ReturnType<typeof caller>, jwt: string) =>
  call('POST', '/group-quests/q/points', { token: jwt, headers: { IDEMPOTENCY_KEY: KEY }, body: { serviceUserId: 'alice', eventPoints: 5 } });
const batch = (call: ReturnType<typeof caller>, jwt: string) =>
  call('POST', '/batch/points', { token: jwt, body: { awards: [{ questId: 'q', serviceUserId: 'alice', eventPoints: 5, idempotencyKey: KEY }] } });

describe('the record is read and written in the player’s turn', () => {
  it('a duplicate that waited behind the first request is answered from its record, not applied again', async () => {
    // The service forgets the key as soon as it answered: only the relay's record can stop the second application.
    const jwt = await token({ sub: 'alice' });
    for (const send of [single, batch]) {
      const s = stack({ hook: () => void s.forget() });
      const [a, b] = await Promise.all([send(s.call, jwt), send(s.call, jwt)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(await s.ledger()).toBe(1);
      expect(s.sent()).toBe(1);
    }
  });

  it('a batch past its deadline still records the acknowledgement that lands after it: the late resend is not applied twice', async () => {
    let release: () => void = () => {};
    const landed = new Promise<void>((resolve) => (release = resolve));
    // The service applies the award at once; its answer reaches the relay 300 ms later, past the 200 ms deadline.
    const s = stack({
      relay: { deadlineMs: 200 },
      hook: async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        release();
      },
    });
    const jwt = await token({ sub: 'alice' });
    const first = await batch(s.call, jwt);
    expect(first.json.results).toEqual([expect.objectContaining({ outcome: 'retry' })]);
    await landed;
    const recordOf = `qp:idem:${upstreamKey('alice', KEY)}`;
    await expect.poll(async () => (await s.store.get([recordOf], 'alice'))[0], { timeout: 2_000 }).toBeDefined();
    s.forget();
    const again = await batch(s.call, jwt);
    expect(again.json.results).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    expect(await s.ledger()).toBe(1);
  });
});

describe('a failing record store follows onStoreError', () => {
  const failing = (op: 'get' | 'set'): IdempotencyRecordStore => {
    const inner = createMemoryRecordStore();
    return {
      get: op === 'get' ? async () => Promise.reject(new Error('down')) : (keys, owner) => inner.get(keys, owner),
      set: op === 'set' ? async () => Promise.reject(new Error('down')) : (entries, ttl, owner) => inner.set(entries, ttl, owner),
    };
  };

  it("'closed': an award whose record cannot be read is not sent (retry), one whose record cannot be written is not acknowledged (retry)", async () => {
    const jwt = await token({ sub: 'alice' });
    const unread = stack({ store: failing('get'), relay: { onStoreError: 'closed' } });
    const refused = await single(unread.call, jwt);
    expect([refused.status, refused.json.code ?? refused.json.message]).toEqual([503, expect.stringMatching(/record/)]);
    expect((await batch(unread.call, jwt)).json.results).toEqual([expect.objectContaining({ outcome: 'retry', reason: 'records_unavailable' })]);
    expect(unread.sent()).toBe(0);

    const unwritten = stack({ store: failing('set'), relay: { onStoreError: 'closed' } });
    expect((await single(unwritten.call, jwt)).status).toBe(503);
    expect((await batch(unwritten.call, jwt)).json.results).toEqual([expect.objectContaining({ outcome: 'retry', reason: 'records_unavailable' })]);
    // Applied once: the resends were the service's replays.
    expect(await unwritten.ledger()).toBe(1);
  });

  it("'open': sent and acknowledged unrecorded, as before", async () => {
    const jwt = await token({ sub: 'alice' });
    const unread = stack({ store: failing('get'), relay: { onStoreError: 'open' } });
    expect((await single(unread.call, jwt)).status).toBe(200);
    const unwritten = stack({ store: failing('set'), relay: { onStoreError: 'open' } });
    expect((await single(unwritten.call, jwt)).status).toBe(200);
  });
});
