// Webhook delivery from the ledger to a real receiver that drops, delays and answers 500: at least once, signed per
// Standard Webhooks, ids that deduplicate to the acknowledged awards' keys, backoff on the protocol's schedule, dead
// letters after the last attempt, replay, 410 Gone, bounded pending lists.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/kit/errors.js';
import { backoffDelay } from '../../../src/protocol/index.js';
import { createWebhooks, type WebhookOptions } from '../../../src/relay/economy/webhooks.js';
import { createMemoryWebhookState } from '../../../src/relay/economy/webhooks-state.js';
import type { LogRecord } from '../../../src/relay/logger.js';
import { until } from '../../helpers/until.js';
import { startReceiver, type Reaction, type Receiver } from './webhook-receiver.js';
import { award, tinyLedger } from './tiny-ledger.js';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function world(react: (id: string, nth: number) => Reaction, options: Partial<WebhookOptions> = {}) {
  const receiver = await startReceiver(react);
  const ledger = tinyLedger();
  const key = secret();
  const logs: LogRecord[] = [];
  const webhooks = createWebhooks(
    { endpoints: [{ url: receiver.url, secret: key }], attempts: 10, retry: { baseMs: 5, maxMs: 40 }, timeoutMs: 500, pollMs: 20, ...options },
    ledger,
    (record) => logs.push(record),
  );
  webhooks.start();
  cleanup.push(
    () => receiver.close(),
    () => webhooks.stop(),
  );
  return { receiver, ledger, key, logs, webhooks };
}

const verifyAll = (receiver: Receiver, key: string) =>
  receiver.arrivals.map((a) => new Webhook(key).verify(a.body, a.headers) as { type: string; data: { key: string; eventPoints: number } });

describe('webhooks', () => {
  it('delivers every acknowledged award and reversal at least once through drops, timeouts and 500s, signed, ids = the keys', async () => {
    // Each id meets a scripted run of failures before its first 204: dropped, answered after the timeout, 500.
    const failures: Reaction[] = [{ drop: true }, { delayMs: 1500 }, { status: 500 }, { status: 503, retryAfter: '0' }];
    const { receiver, ledger, key, webhooks } = await world((id, nth) => {
      const run = (id.charCodeAt(id.length - 1) + id.charCodeAt(id.length - 2)) % 4;
      return nth <= run ? (failures[(nth + run) % failures.length] as Reaction) : { ok: true };
    });
    const awards = Array.from({ length: 40 }, () => award());
    // Decisions that are not delivered: refused, forwarded, failed.
    const others = [
      award({ outcome: 'refused', code: 'budget', status: 422 }),
      award({ outcome: 'forwarded' }),
      award({ outcome: 'failed', status: 503 }),
    ];
    const reversals = awards
      .slice(0, 5)
      .map((a, i) =>
        award({ outcome: 'reversed', key: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`, reverses: a.key as string, eventPoints: -5 }),
      );
    await ledger.append([...awards.slice(0, 20), ...others]);
    await ledger.append([...awards.slice(20), ...reversals]);
    // The same award acknowledged twice (a replayed answer): one more delivery of the same id, never a new id.
    await ledger.append([awards[0]!]);
    const expected = new Set([...awards, ...reversals].map((a) => a.key));
    await until(() => expected.size === new Set(receiver.delivered()).size && webhooks.inFlight === 0, 'every id delivered', 20_000);
    expect(new Set(receiver.delivered())).toEqual(expected);
    // Dropped, timed out and 500: each met at least once.
    const reactions = new Set(receiver.arrivals.map((a) => Object.keys(a.reaction)[0]));
    expect([...reactions].sort()).toEqual(['delayMs', 'drop', 'ok', 'status']);
    // Every request (retries included) verifies with the endpoint's secret; its id is its payload's key.
    const payloads = verifyAll(receiver, key);
    for (const [i, payload] of payloads.entries()) expect(payload.data.key).toBe(receiver.arrivals[i]!.id);
    expect(payloads.filter((p) => p.type === 'award.reversed').every((p) => p.data.eventPoints === -5)).toBe(true);
    expect(new Set(payloads.map((p) => p.type))).toEqual(new Set(['award.acknowledged', 'award.reversed']));
    expect(await webhooks.dead()).toEqual([]);
    // Another secret does not verify them.
    expect(() => new Webhook(secret()).verify(receiver.arrivals[0]!.body, receiver.arrivals[0]!.headers)).toThrow(/signature/);
  });

  it('spaces attempts by the protocol backoff, dead-letters after the last, and replay delivers', async () => {
    const random = () => 0.999;
    const retry = { baseMs: 40, maxMs: 200 };
    const { receiver, ledger, webhooks, logs } = await world(() => ({ status: 500 }), { attempts: 5, retry, random });
    const one = award();
    await ledger.append([one]);
    await until(async () => (await webhooks.dead()).length === 1, 'a dead letter');
    const [dead] = await webhooks.dead();
    expect(dead).toMatchObject({ id: one.key, attempts: 5, lastError: 'HTTP 500' });
    // Exactly five attempts: the dead letter is written after the fifth answer, and nothing is pending.
    expect(receiver.arrivals.map((a) => a.id)).toEqual(Array(5).fill(one.key));
    const gaps = receiver.arrivals.slice(1).map((a, i) => a.at - receiver.arrivals[i]!.at);
    for (const [i, gap] of gaps.entries()) {
      const planned = backoffDelay(i, retry.baseMs, retry.maxMs, 0, random);
      // Never early (timer granularity aside), and not much later than planned.
      expect(gap).toBeGreaterThanOrEqual(planned - 2);
      expect(gap).toBeLessThan(planned + 500);
    }
    expect(gaps.map((_, i) => backoffDelay(i, retry.baseMs, retry.maxMs, 0, random))).toEqual([39, 79, 159, 199]);
    expect(logs.some((l) => l.level === 'warn' && l.msg.includes('dead letter after 5 attempts'))).toBe(true);

    receiver.script(() => ({ ok: true }));
    expect(await webhooks.replay({ ids: ['not-an-id'] })).toBe(0);
    expect(await webhooks.replay({ ids: [one.key as string] })).toBe(1);
    await until(() => receiver.delivered().length === 1, 'the replayed delivery');
    expect(receiver.delivered()).toEqual([one.key]);
    expect(await webhooks.dead()).toEqual([]);
  });

  it('honours a Retry-After up to maxMs', async () => {
    const { receiver, ledger } = await world((_id, nth) => (nth === 1 ? { status: 429, retryAfter: '1' } : { ok: true }), {
      retry: { baseMs: 5, maxMs: 2000 },
    });
    await ledger.append([award()]);
    await until(() => receiver.delivered().length === 1, 'the delivery after Retry-After');
    const [first, second] = receiver.arrivals;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(995);
  });

  it('stops at 410 Gone until a replay', async () => {
    const { receiver, ledger, webhooks, logs } = await world(() => ({ status: 410 }));
    const first = award();
    await ledger.append([first]);
    await until(async () => (await webhooks.dead()).length === 1, 'the gone dead letter');
    expect(await webhooks.dead()).toMatchObject([{ id: first.key, attempts: 1, lastError: 'HTTP 410' }]);
    expect(logs.some((l) => l.level === 'error' && l.msg.includes('410 Gone'))).toBe(true);
    // Later awards wait in the ledger: nothing is sent to a gone endpoint (rounds run on, by the poll).
    const second = award();
    await ledger.append([second]);
    for (let i = 0; i < 3; i++) await webhooks.round();
    expect(receiver.arrivals).toHaveLength(1);

    receiver.script(() => ({ ok: true }));
    expect(await webhooks.replay({ all: true })).toBe(1);
    await until(() => receiver.delivered().length === 2, 'both delivered after the replay');
    expect(new Set(receiver.delivered())).toEqual(new Set([first.key, second.key]));
  });

  it("a gone endpoint's waiting deliveries become dead letters unsent, and never starve another endpoint", async () => {
    // Endpoint A answers 500 to its first attempts (its deliveries wait for retries), then 410; B answers 204.
    const a = await startReceiver((_id, nth) => (nth === 1 ? { status: 500 } : { status: 410 }));
    const b = await startReceiver();
    const ledger = tinyLedger();
    const webhooks = createWebhooks(
      {
        endpoints: [
          { url: a.url, secret: secret() },
          { url: b.url, secret: secret() },
        ],
        concurrency: 2,
        retry: { baseMs: 50, maxMs: 50 },
        pollMs: 10,
      },
      ledger,
      () => {},
    );
    webhooks.start();
    cleanup.push(
      () => a.close(),
      () => b.close(),
      () => webhooks.stop(),
    );
    const awards = Array.from({ length: 20 }, () => award());
    await ledger.append(awards);
    await until(() => new Set(b.delivered()).size === 20, 'B receives all twenty');
    await until(async () => (await webhooks.dead()).length === 20, "A's twenty deliveries dead");
    // A got each id once (500), then 410 once or twice (two attempts in flight at once); the rest were buried unsent.
    const gone = a.arrivals.filter((x) => 'status' in x.reaction && x.reaction.status === 410).length;
    expect(gone).toBeGreaterThanOrEqual(1);
    expect(gone).toBeLessThanOrEqual(2);
    expect(a.arrivals.length).toBeLessThanOrEqual(20 + gone);
    expect((await webhooks.dead()).every((d) => d.endpoint === a.url)).toBe(true);
  });

  it('keeps at most maxPending deliveries per endpoint, the rest waiting in the ledger', async () => {
    const state = createMemoryWebhookState();
    let most = 0;
    const { receiver, ledger } = await world(() => ({ delayMs: 30 }), { state, maxPending: 3, concurrency: 2, timeoutMs: 1000 });
    // A delayed 200 within the timeout is a delivery: the receiver's delivered() counts only its immediate ones.
    const watch = setInterval(async () => {
      most = Math.max(most, await state.pendingCount(receiver.url));
    }, 2);
    cleanup.push(async () => clearInterval(watch));
    const awards = Array.from({ length: 12 }, () => award());
    await ledger.append(awards);
    await until(() => new Set(receiver.arrivals.map((a) => a.id)).size === 12 && receiver.arrivals.length >= 12, 'all twelve sent');
    await until(async () => (await state.pendingCount(receiver.url)) === 0, 'nothing pending');
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
    expect(receiver.arrivals).toHaveLength(12);
  });

  it('starts from now: entries before the first start are not delivered', async () => {
    const receiver = await startReceiver();
    const ledger = tinyLedger();
    await ledger.append([award({ at: Date.now() - 60_000 })]);
    const webhooks = createWebhooks({ endpoints: [{ url: receiver.url, secret: secret() }], pollMs: 10 }, ledger, () => {});
    cleanup.push(
      () => receiver.close(),
      () => webhooks.stop(),
    );
    webhooks.start();
    const later = award();
    await ledger.append([later]);
    await until(() => receiver.delivered().length === 1, 'the later award');
    await webhooks.round();
    expect(receiver.delivered()).toEqual([later.key]);
  });

  it('refuses a bad endpoint without printing its secret', () => {
    const ledger = tinyLedger();
    const bad = 'not-a-webhook-secret-but-long-enough';
    const make = (endpoint: { url: string; secret: string }) => () => createWebhooks({ endpoints: [endpoint] }, ledger, () => {});
    expect(make({ url: 'http://127.0.0.1/', secret: bad })).toThrow(ConfigError);
    try {
      make({ url: 'http://127.0.0.1/', secret: bad })();
    } catch (error) {
      expect((error as Error).message).not.toContain(bad);
      expect((error as Error).message).toMatch(/webhooks\.endpoints\[0\]\.secret/);
    }
    expect(make({ url: 'ftp://example.com/', secret: secret() })).toThrow(/http\(s\) URL/);
    expect(() => createWebhooks({ endpoints: [] }, ledger, () => {})).toThrow(/at least one/);
    expect(() => createWebhooks({ endpoints: [{ url: 'https://example.com/', secret: secret() }], attempts: 0 }, ledger, () => {})).toThrow(
      /attempts/,
    );
  });
});
