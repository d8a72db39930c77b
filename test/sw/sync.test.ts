// registerQuestPointsSync in Node: fake-indexeddb stands for the origin's IndexedDB, an EventTarget for the worker's
// global scope, a stubbed fetch for the token URL and the relay. The real-Chromium behaviour is in
// test/browser/sw-sync.test.ts.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { idbKV } from '../../src/client/store.js';
import type { DeadLetter, PendingAward } from '../../src/client/types.js';
import { registerQuestPointsSync, type QuestPointsSync, type QuestPointsSyncOptions, type WorkerScope } from '../../src/sw/index.js';
import { fakeRelay, json, jwt, uniqueName, type Handler } from '../client/fake-relay.js';

const ORIGIN = 'https://game.test';

/** A worker global scope: events are dispatched by the test; waitUntil collects the promises. */
function fakeScope() {
  const target = new EventTarget() as EventTarget & WorkerScope;
  Object.defineProperty(target, 'location', { value: new URL(`${ORIGIN}/sw.js`) });
  return {
    scope: target,
    /** Fires a sync-like event; resolves or rejects as the promise the worker gave waitUntil (undefined: none). */
    fire(type: 'sync' | 'periodicsync', tag: string): Promise<unknown> | undefined {
      let work: Promise<unknown> | undefined;
      const event = Object.assign(new Event(type), { tag, waitUntil: (p: Promise<unknown>) => void (work = p) });
      target.dispatchEvent(event);
      return work;
    },
  };
}

const running: QuestPointsSync[] = [];
const channels: BroadcastChannel[] = [];
afterEach(() => {
  running.splice(0).forEach((s) => s.close());
  channels.splice(0).forEach((c) => c.close());
  vi.unstubAllGlobals();
});

interface Setup {
  relay?: Handler;
  /** Answers the token URL; default: a fresh JWT. */
  token?: (n: number) => Response;
  options?: Partial<QuestPointsSyncOptions>;
}

/** An outbox holding `points` awards (as the pages write it), a worker on it, and what it sends and says. */
async function setup(points: number[], { relay: handler, token, options }: Setup = {}) {
  const storageName = uniqueName('sw');
  const awards: PendingAward[] = points.map((eventPoints, i) => ({
    questId: 'quest-1',
    serviceUserId: 'player-1',
    eventPoints,
    idempotencyKey: crypto.randomUUID(),
    queuedAt: Date.now(),
    seq: i + 1,
  }));
  const outbox = idbKV<PendingAward>(`${storageName}:outbox`);
  const dead = idbKV<DeadLetter>(`${storageName}:dead`);
  await outbox.setMany(awards.map((a) => [a.idempotencyKey, a]));
  const relay = fakeRelay(handler);
  let tokens = 0;
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), ORIGIN);
    if (url.pathname === '/token') return token ? token(++tokens) : (++tokens, new Response(jwt('player-1', Date.now() / 1000 + 3600)));
    return relay.fetch(input, init);
  });
  const messages: unknown[] = [];
  const channel = new BroadcastChannel(`quest-points:${storageName}`);
  channel.onmessage = (event: MessageEvent) => messages.push(event.data);
  channels.push(channel);
  const { scope, fire } = fakeScope();
  const sync = registerQuestPointsSync({ relayUrl: '/api', tokenUrl: '/token', storageName, backoff: { baseMs: 5, maxMs: 20 }, ...options }, scope);
  running.push(sync);
  return { awards, outbox, dead, relay, fire, messages, tokenCount: () => tokens };
}

const keysOf = (awards: { idempotencyKey: string }[]) => awards.map((a) => a.idempotencyKey);

describe('registerQuestPointsSync: options', () => {
  const { scope } = fakeScope();
  it.each([
    [{ tokenUrl: '/token' }, /relayUrl must be a non-empty string/],
    [{ relayUrl: '/api' }, /tokenUrl must be a non-empty string/],
    [{ relayUrl: '/api', tokenUrl: 'https://elsewhere.test/token' }, /tokenUrl must be same-origin \(https:\/\/game\.test\), not https:\/\/elsewhere\.test/],
    [{ relayUrl: '/api', tokenUrl: '/token', storageName: '' }, /storageName must be a non-empty string/],
    [{ relayUrl: '/api', tokenUrl: '/token', tag: ' ' }, /tag must be a non-empty string/],
    [{ relayUrl: '/api', tokenUrl: '/token', budgetMs: Number.NaN }, /budgetMs must be a positive number/],
  ])('%j is refused: %s', (options, message) => {
    expect(() => registerQuestPointsSync(options as QuestPointsSyncOptions, scope)).toThrow(message);
  });
});

describe('registerQuestPointsSync: the sync event', () => {
  it('drains the outbox oldest first, same keys, once; tells the pages; ignores other tags', async () => {
    const { awards, outbox, relay, fire, messages } = await setup([1, 2, 3]);
    expect(fire('sync', 'other-tag')).toBeUndefined();
    await fire('sync', 'quest-points');
    expect(relay.sentKeys()).toEqual(keysOf(awards));
    expect(relay.seen.find((r) => r.path === '/api/batch/points')!.headers.authorization).toMatch(/^Bearer e30\./);
    expect(await outbox.all()).toEqual([]);
    await vi.waitFor(() => expect(messages).toEqual([{ t: 'done', ok: keysOf(awards), dead: [] }]));
    // Nothing left: a second event sends nothing.
    await fire('periodicsync', 'quest-points');
    expect(relay.sentKeys()).toHaveLength(3);
  });

  it('answers periodicsync and a custom tag', async () => {
    const { awards, relay, fire } = await setup([4], { options: { tag: 'my-game' } });
    expect(fire('periodicsync', 'quest-points')).toBeUndefined();
    await fire('periodicsync', 'my-game');
    expect(relay.sentKeys()).toEqual(keysOf(awards));
  });

  it('a 503 is retried within the event with the same keys', async () => {
    let calls = 0;
    const { awards, outbox, relay, fire } = await setup([1, 2], { relay: () => (++calls <= 2 ? json(503, { success: false, message: 'busy' }) : undefined) });
    await fire('sync', 'quest-points');
    expect(relay.sentKeys()).toEqual([...keysOf(awards), ...keysOf(awards), ...keysOf(awards)]);
    expect(await outbox.all()).toEqual([]);
  });

  it('still failing at the end of the budget: the event fails (the browser fires it again) and the awards stay', async () => {
    const { awards, outbox, relay, fire } = await setup([1], { relay: () => json(503, { success: false, message: 'busy' }), options: { budgetMs: 200 } });
    await expect(fire('sync', 'quest-points')).rejects.toThrow(/awards still queued after 200 ms/);
    expect(relay.sentKeys().length).toBeGreaterThan(1);
    expect(new Set(relay.sentKeys())).toEqual(new Set(keysOf(awards)));
    expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
  });

  it('a token refused by the relay is fetched again once from tokenUrl', async () => {
    const { awards, outbox, relay, fire, tokenCount } = await setup([5], {
      relay: (req) => (req.headers.authorization === 'Bearer stale.token.x' ? json(401, { success: false, message: 'token expired' }) : undefined),
      token: (n) => new Response(n === 1 ? 'stale.token.x' : jwt('player-1', Date.now() / 1000 + 3600)),
    });
    await fire('sync', 'quest-points');
    expect(tokenCount()).toBe(2);
    expect(relay.sentKeys()).toEqual([...keysOf(awards), ...keysOf(awards)]);
    expect(await outbox.all()).toEqual([]);
  });

  it('tokenUrl may answer JSON { token }', async () => {
    const token = jwt('player-1', Date.now() / 1000 + 3600);
    const { relay, fire } = await setup([5], { token: () => json(200, { token }) });
    await fire('sync', 'quest-points');
    expect(relay.seen[0]!.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('tokenUrl unreachable (offline) is retried within the event like a send; delivered once it answers', async () => {
    const { awards, outbox, relay, fire, tokenCount } = await setup([5, 6], {
      token: (n) => {
        if (n <= 2) throw new TypeError('Failed to fetch');
        return new Response(jwt('player-1', Date.now() / 1000 + 3600));
      },
    });
    await fire('sync', 'quest-points');
    expect(tokenCount()).toBe(3);
    expect(relay.sentKeys()).toEqual(keysOf(awards));
    expect(await outbox.all()).toEqual([]);
  });

  it('tokenUrl refusing (no session): the event fails, nothing is sent, the awards stay', async () => {
    const { awards, outbox, relay, fire } = await setup([5], { token: () => new Response('login first', { status: 401 }) });
    await expect(fire('sync', 'quest-points')).rejects.toThrow(/tokenUrl answered HTTP 401/);
    expect(relay.sentKeys()).toEqual([]);
    expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
  });

  it('an award the relay refuses becomes a dead letter (stored before it leaves the outbox); the others are sent', async () => {
    const { awards, outbox, dead, fire, messages } = await setup([1, 5000, 3], {
      relay: (req) =>
        req.path === '/api/batch/points'
          ? json(200, {
              success: true,
              results: req.body.awards.map((a: PendingAward) =>
                a.eventPoints === 5000 ? { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 422, message: 'too many points' } : { idempotencyKey: a.idempotencyKey, outcome: 'ok' },
              ),
            })
          : undefined,
    });
    await fire('sync', 'quest-points');
    expect(await outbox.all()).toEqual([]);
    const letters = await dead.all();
    expect(letters).toEqual([expect.objectContaining({ idempotencyKey: awards[1]!.idempotencyKey, eventPoints: 5000, status: 422, message: 'too many points' })]);
    await vi.waitFor(() => expect(messages).toEqual([{ t: 'done', ok: [awards[0]!.idempotencyKey, awards[2]!.idempotencyKey], dead: letters }]));
  });

  it('two events at once make one drain', async () => {
    const { awards, relay, fire } = await setup([1, 2]);
    await Promise.all([fire('sync', 'quest-points'), fire('periodicsync', 'quest-points')]);
    expect(relay.sentKeys()).toEqual(keysOf(awards));
  });

  it('an event that arrives during an earlier one\'s drain gets a budget of its own', async () => {
    // 503 until `healthy`: the first event's 300 ms run out while it retries; the second, fired 200 ms in, joins
    // the same drain (nothing is sent twice) but still has time when the relay comes back at 400 ms.
    let healthy = false;
    const { awards, outbox, relay, fire } = await setup([1, 2], {
      relay: () => (healthy ? undefined : json(503, { success: false, message: 'busy' })),
      options: { budgetMs: 300 },
    });
    const first = fire('sync', 'quest-points')!;
    const firstFailed = expect(first).rejects.toThrow(/awards still queued after 300 ms/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = fire('sync', 'quest-points')!;
    await firstFailed;
    healthy = true;
    await second;
    expect(await outbox.all()).toEqual([]);
    // One drain: every send carried both awards, oldest first.
    const sends = relay.seen.filter((r) => r.path === '/api/batch/points').map((r) => keysOf(r.body.awards));
    expect(sends.length).toBeGreaterThan(2);
    for (const sent of sends) expect(sent).toEqual(keysOf(awards));
  });
});
