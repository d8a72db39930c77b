// Webhook delivery state on a real redis-server: one relay delivers at a time (the lease), and a relay that stops
// (or crashes) is replaced by another that resumes from the cursor: every acknowledged award delivered, including
// those appended while no relay delivered and those pending retries at the crash.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebhooks, type WebhookOptions } from '../../../src/relay/economy/webhooks.js';
import type { WebhookStateStore } from '../../../src/relay/economy/webhooks-state.js';
import { createRedisCounterStore, type RedisCounterStore } from '../../../src/relay/node/index.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { until } from '../../helpers/until.js';
import { award, tinyLedger } from './tiny-ledger.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

let redis: TestRedis;
const stores: RedisCounterStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close?.()));
  await redis?.stop();
});
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A relay's view of the shared Redis: its own connection, the same keys (a prefix per test). */
async function stateOn(prefix: string): Promise<WebhookStateStore> {
  const store = await createRedisCounterStore({ url: redis.url, prefix });
  stores.push(store);
  return store.webhooks;
}

const secret = `whsec_${randomBytes(24).toString('base64')}`;

function deliverer(receiver: Receiver, ledger: ReturnType<typeof tinyLedger>, state: WebhookStateStore, over: Partial<WebhookOptions> = {}) {
  let sent = 0;
  const webhooks = createWebhooks(
    {
      endpoints: [{ url: receiver.url, secret }],
      state,
      attempts: 8,
      retry: { baseMs: 10, maxMs: 80 },
      timeoutMs: 300,
      pollMs: 20,
      // Long enough that a loaded machine's timer lag never lets it lapse between two rounds of its holder.
      leaseMs: 5000,
      fetch: (input, init) => {
        sent += 1;
        return fetch(input, init);
      },
      ...over,
    },
    ledger,
    () => {},
  );
  webhooks.start();
  cleanup.push(() => webhooks.stop());
  return { webhooks, sent: () => sent };
}

describe('webhooks on Redis', () => {
  it('one relay delivers at a time: the lease', async () => {
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const ledger = tinyLedger();
    const a = deliverer(receiver, ledger, await stateOn('lease:'));
    const b = deliverer(receiver, ledger, await stateOn('lease:'));
    const awards = Array.from({ length: 30 }, () => award());
    await ledger.append(awards);
    await until(() => new Set(receiver.delivered()).size === 30, 'thirty delivered');
    expect(new Set(receiver.delivered())).toEqual(new Set(awards.map((x) => x.key)));
    // Exactly one of the two sent anything (each award once, or more on a timeout under load: at least once).
    const [idle, busy] = [a.sent(), b.sent()].sort((x, y) => x - y);
    expect(idle).toBe(0);
    expect(busy).toBeGreaterThanOrEqual(30);
  });

  it('a crashed relay is replaced: pending retries and entries appended meanwhile are delivered from the cursor', async () => {
    // The first 2 attempts of every id fail: at the crash, deliveries are pending their retries.
    const receiver = await startReceiver((_id, nth) => (nth <= 2 ? { status: 500 } : { ok: true }));
    cleanup.push(() => receiver.close());
    const ledger = tinyLedger();
    const state = await stateOn('crash:');
    // A crash: the lease is never released (stop() below stands for the process dying, its lease left to expire).
    const crashing: WebhookStateStore = { ...state, release: async () => {} };
    const first = deliverer(receiver, ledger, crashing, { retry: { baseMs: 2000, maxMs: 2000 }, leaseMs: 1000 });
    const before = Array.from({ length: 10 }, () => award());
    await ledger.append(before);
    await until(() => receiver.arrivals.length >= 10, 'first attempts made');
    await first.webhooks.stop();
    expect(await state.pendingCount(receiver.url)).toBe(10);
    // While no relay delivers, more awards are acknowledged (by other relays, into the shared ledger).
    const during = Array.from({ length: 5 }, () => award());
    await ledger.append(during);
    const second = deliverer(receiver, ledger, await stateOn('crash:'));
    await until(() => new Set(receiver.delivered()).size === 15, 'all fifteen delivered by the second relay', 20_000);
    expect(new Set(receiver.delivered())).toEqual(new Set([...before, ...during].map((x) => x.key)));
    expect(second.sent()).toBeGreaterThanOrEqual(15);
    expect(await state.pendingCount(receiver.url)).toBe(0);
  });

  it('keeps dead letters and gone endpoints across relays; replay from another relay delivers them', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    cleanup.push(() => receiver.close());
    const ledger = tinyLedger();
    const first = deliverer(receiver, ledger, await stateOn('dead:'), { attempts: 2, retry: { baseMs: 5, maxMs: 5 } });
    const awards = Array.from({ length: 3 }, () => award());
    await ledger.append(awards);
    await until(async () => (await first.webhooks.dead()).length === 3, 'three dead letters');
    await first.webhooks.stop();
    receiver.script(() => ({ ok: true }));
    const second = deliverer(receiver, ledger, await stateOn('dead:'));
    const dead = await second.webhooks.dead();
    expect(dead.map((d) => d.id).sort()).toEqual(awards.map((x) => x.key).sort());
    expect(dead[0]).toMatchObject({ attempts: 2, lastError: 'HTTP 500', endpoint: receiver.url });
    expect(await second.webhooks.replay({ ids: [awards[0]!.key as string] })).toBe(1);
    // Replaying twice at once revives once.
    const [x, y] = await Promise.all([second.webhooks.replay({ all: true }), second.webhooks.replay({ all: true })]);
    expect(x + y).toBe(2);
    await until(() => new Set(receiver.delivered()).size === 3, 'the replayed deliveries');
    expect(await second.webhooks.dead()).toEqual([]);
  });
});
