// The economy's Durable Object store, in Node with a storage that behaves as the object's (serialised values, one
// request at a time per object as the runtime's input gate gives): two relays on one namespace share a budget
// exactly under concurrency, a once marker and a ban outlive the object (a new instance on the same storage).
import { describe, expect, it } from 'vitest';
import {
  createDurableObjectEconomyStore,
  createMemoryRecordStore,
  EconomyRules,
  type DurableObjectNamespaceLike,
  type EconomyStorageLike,
  type RelayPolicy,
} from '../../src/relay/index.js';
import { token } from '../helpers/fixtures.js';
import { fakeRelay } from './helpers.js';

function memoryStorage(): EconomyStorageLike & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  const clone = (value: unknown) => structuredClone(value);
  return {
    data,
    async get(keys) {
      return new Map(keys.filter((key) => data.has(key)).map((key) => [key, clone(data.get(key))]));
    },
    async put(entries) {
      for (const [key, value] of Object.entries(entries)) data.set(key, clone(value));
    },
    async delete(keys) {
      return keys.filter((key) => data.delete(key)).length;
    },
    async list({ prefix }) {
      return new Map([...data].filter(([key]) => key.startsWith(prefix)).map(([key, value]) => [key, clone(value)]));
    },
  };
}

/** A namespace of objects over their storages; each object handles one request at a time (the input gate). */
function namespace() {
  const storages = new Map<string, ReturnType<typeof memoryStorage>>();
  const objects = new Map<string, { object: EconomyRules; queue: Promise<unknown> }>();
  const ns: DurableObjectNamespaceLike & { evict(): void } = {
    idFromName: (name) => name,
    get: (id) => ({
      fetch: async (input, init) => {
        const name = id as unknown as string;
        if (!storages.has(name)) storages.set(name, memoryStorage());
        let entry = objects.get(name);
        if (!entry) {
          entry = { object: new EconomyRules({ storage: storages.get(name)! }), queue: Promise.resolve() };
          objects.set(name, entry);
        }
        const turn = entry.queue.then(() => entry.object.fetch(new Request(input, init)));
        entry.queue = turn.catch(() => undefined);
        return turn;
      },
    }),
    evict: () => objects.clear(),
  };
  return ns;
}

const POLICY: RelayPolicy = {
  events: { coin: { maxPoints: 10 }, 'first-win': { points: 50, once: true } },
  budgets: [{ points: 100, window: 'day', event: 'coin' }],
};

describe('economy on Durable Objects', () => {
  it('two relays on one namespace: a budget of 100 holds exactly under 40 concurrent awards; once and bans outlive an eviction', async () => {
    const ns = namespace();
    const relays = [0, 1].map(() =>
      fakeRelay({ policy: POLICY, economyStore: createDurableObjectEconomyStore(ns), idempotency: { store: createMemoryRecordStore() } }),
    );
    const jwt = await token({ sub: 'p' });
    const award = (i: number, body: Record<string, unknown>) =>
      relays[i % 2]!.call('POST', '/group-quests/q/points', {
        token: jwt,
        headers: { 'Idempotency-Key': crypto.randomUUID() },
        body: { serviceUserId: 'p', ...body },
      });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => award(i, { eventName: 'coin', eventPoints: 7 })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(14);
    expect(relays[0]!.seen.length + relays[1]!.seen.length).toBe(14);
    expect(answers.filter((r) => r.json?.code === 'budget')).toHaveLength(26);

    expect((await award(0, { eventName: 'first-win', eventPoints: 50 })).status).toBe(200);
    const store = createDurableObjectEconomyStore(ns);
    await store.bans.ban('q-bot', 'farming');
    ns.evict();
    expect((await award(1, { eventName: 'first-win', eventPoints: 50 })).json.code).toBe('once');
    expect(await store.bans.list()).toEqual([{ player: 'q-bot', at: expect.any(Number), reason: 'farming' }]);
    const bot = relays[0]!.call('POST', '/group-quests/q/points', {
      token: await token({ sub: 'q-bot' }),
      body: { serviceUserId: 'q-bot', eventPoints: 1, eventName: 'coin' },
    });
    expect((await bot).json.code).toBe('banned');
  });

  it('a failing object answers the award retry (503), never sends it unchecked', async () => {
    const broken: DurableObjectNamespaceLike = { idFromName: (n) => n, get: () => ({ fetch: async () => new Response('no', { status: 500 }) }) };
    const { call, seen } = fakeRelay({ policy: POLICY, economyStore: createDurableObjectEconomyStore(broken) });
    const answer = await call('POST', '/group-quests/q/points', {
      token: await token({ sub: 'p' }),
      body: { serviceUserId: 'p', eventName: 'coin', eventPoints: 1 },
    });
    expect(answer.status).toBe(503);
    expect(seen).toHaveLength(0);
  });
});
