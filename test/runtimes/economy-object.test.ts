// The economy's Durable Object in workerd (miniflare): the store in Node, the object in workerd with its real storage
// and input gate. Concurrent reservations from two stores (two relays) never exceed a budget; a once marker holds;
// a release undoes one reservation; bans are listed from storage.
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDurableObjectEconomyStore } from '../../src/relay/economy/durable-object.js';
import { planAward } from '../../src/relay/economy/plan.js';
import { resolvePolicy } from '../../src/relay/policy.js';
import { bundleCore } from './bundle.js';

let mf: Miniflare;
beforeAll(async () => {
  const bundle = await bundleCore(fileURLToPath(new URL('./servers/economy-worker.ts', import.meta.url)));
  expect(bundle.nodeImports).toEqual([]);
  mf = new Miniflare({
    modules: true,
    script: bundle.code,
    compatibilityDate: '2025-09-01',
    name: 'economy',
    durableObjects: { ECONOMY: { className: 'EconomyRules', useSQLite: true } },
  });
  await mf.ready;
}, 60_000);
afterAll(async () => {
  await mf?.dispose();
});

let n = 0;
/** Two stores in Node (two relays) on one fresh object in workerd. */
const stores = () => {
  const name = `economy-${n++}`;
  const namespace = {
    idFromName: () => name,
    get: () => ({
      fetch: async (_url: string, init?: RequestInit) => {
        const worker = (await mf.getWorker('economy')) as unknown as { fetch(url: string, init?: RequestInit): Promise<Response> };
        return worker.fetch(`http://economy.test/?name=${name}`, init);
      },
    }),
  };
  return [createDurableObjectEconomyStore(namespace, { shards: 1 }), createDurableObjectEconomyStore(namespace, { shards: 1 })] as const;
};

const policy = resolvePolicy({
  events: { coin: { maxPoints: 10 }, 'first-win': { points: 50, once: true } },
  budgets: [{ points: 100, window: 'day', timeZone: 'Europe/Paris', event: 'coin' }],
});
const plan = (event: string, points: number, id = crypto.randomUUID()) => {
  const planned = planAward(policy, new Map(), { questId: 'q', eventName: event, eventPoints: points }, 'alice', id, Date.now());
  if (!('reservation' in planned)) throw new Error('refused without a store');
  return planned.reservation;
};

describe('the economy Durable Object (workerd)', { timeout: 60_000 }, () => {
  it('40 concurrent reservations of 7 from two stores: 14 fit a budget of 100, never one point more', async () => {
    const [a, b] = stores();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).reserve(plan('coin', 7))));
    expect(answers.filter((answer) => answer.ok)).toHaveLength(14);
    expect(answers.filter((answer) => !answer.ok && answer.refused === 'budget')).toHaveLength(26);
  });

  it('once under 20 concurrent attempts: one; a release frees it; a resend of the same id passes', async () => {
    const [a, b] = stores();
    const attempts = Array.from({ length: 20 }, () => plan('first-win', 50));
    const answers = await Promise.all(attempts.map((r, i) => (i % 2 ? a : b).reserve(r)));
    const winner = attempts[answers.findIndex((answer) => answer.ok)]!;
    expect(answers.filter((answer) => answer.ok)).toHaveLength(1);
    expect(await b.reserve({ ...winner, now: Date.now() })).toEqual({ ok: true });
    await a.release(winner);
    expect(await b.reserve(plan('first-win', 50))).toEqual({ ok: true });
  });

  it('bans are kept in storage and listed', async () => {
    const [a, b] = stores();
    await a.bans.ban('alice', 'bot');
    expect(await b.reserve(plan('coin', 1))).toEqual({ ok: false, refused: 'banned' });
    expect(await b.bans.list()).toEqual([{ player: 'alice', at: expect.any(Number), reason: 'bot' }]);
    await b.bans.unban('alice');
    expect(await a.reserve(plan('coin', 1))).toEqual({ ok: true });
  });
});
