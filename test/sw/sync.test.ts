// registerQuestPointsSync in Node: fake-indexeddb stands for the origin's IndexedDB, an EventTarget for the worker's
// global scope, a stubbed fetch for the token URL and the relay. The real-Chromium behaviour is in
// test/browser/sw-sync.test.ts.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQuestPoints } from '../../src/client/index.js';
import { idbKV } from '../../src/client/store.js';
import type { DeadLetter, PendingAward, SyncFailure } from '../../src/client/types.js';
import { registerQuestPointsSync, type QuestPointsSync, type QuestPointsSyncOptions, type WorkerScope } from '../../src/sw/index.js';
import { batchOf, fakeRelay, json, jwt, uniqueName, type Handler } from '../client/fake-relay.js';

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
      const waitUntil = (p: Promise<unknown>) => {
        work = p;
      };
      const event = Object.assign(new Event(type), { tag, waitUntil });
      target.dispatchEvent(event);
      return work;
    },
  };
}

const running: QuestPointsSync[] = [];
const channels: BroadcastChannel[] = [];
afterEach(() => {
  for (const s of running.splice(0)) s.close();
  for (const c of channels.splice(0)) c.close();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

interface Setup {
  relay?: Handler;
  /** Answers the token URL (n: the how-manieth fetch); default: a fresh JWT as JSON { token }. */
  token?: (n: number, init?: RequestInit) => Response | Promise<Response>;
  options?: Partial<QuestPointsSyncOptions>;
  /** Each award's player (default player-1 for all). */
  users?: string[];
}

/** An outbox holding `points` awards (as the pages write it), a worker on it, and what it sends and says. */
async function setup(points: number[], { relay: handler, token, options, users }: Setup = {}) {
  const storageName = uniqueName('sw');
  const awards: PendingAward[] = points.map((eventPoints, i) => ({
    questId: 'quest-1',
    serviceUserId: users?.[i] ?? 'player-1',
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
  const tokenTimes: number[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), ORIGIN);
    if (url.pathname === '/token') {
      tokenTimes.push(Date.now());
      tokens++;
      return token ? token(tokens, init) : tokenAnswer(jwt('player-1', Date.now() / 1000 + 3600));
    }
    return relay.fetch(input, init);
  });
  const messages: unknown[] = [];
  const channel = new BroadcastChannel(`quest-points:${storageName}`);
  channel.onmessage = (event: MessageEvent) => messages.push(event.data);
  channels.push(channel);
  const { scope, fire } = fakeScope();
  const sync = registerQuestPointsSync({ relayUrl: '/api', tokenUrl: '/token', storageName, backoff: { baseMs: 5, maxMs: 20 }, ...options }, scope);
  running.push(sync);
  return { awards, outbox, dead, relay, fire, messages, storageName, tokenTimes, tokenCount: () => tokens };
}

/** The token URL's one format: JSON { token }. */
const tokenAnswer = (token: string) => json(200, { token });

const keysOf = (awards: { idempotencyKey: string }[]) => awards.map((a) => a.idempotencyKey);

describe('registerQuestPointsSync: options', () => {
  const { scope } = fakeScope();
  it.each([
    [{ tokenUrl: '/token' }, /relayUrl must be a non-empty string/],
    [{ relayUrl: '/api' }, /tokenUrl must be a non-empty string/],
    [
      { relayUrl: '/api', tokenUrl: 'https://elsewhere.test/token' },
      /tokenUrl must be same-origin \(https:\/\/game\.test\), not https:\/\/elsewhere\.test/,
    ],
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
    const { awards, outbox, relay, fire } = await setup([1, 2], {
      relay: () => (++calls <= 2 ? json(503, { success: false, message: 'busy' }) : undefined),
    });
    await fire('sync', 'quest-points');
    expect(relay.sentKeys()).toEqual([...keysOf(awards), ...keysOf(awards), ...keysOf(awards)]);
    expect(await outbox.all()).toEqual([]);
  });

  it('still failing at the end of the budget: the event fails (the browser fires it again) and the awards stay', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { awards, outbox, relay, fire } = await setup([1], {
      relay: () => json(503, { success: false, message: 'busy' }),
      options: { budgetMs: 200 },
    });
    await expect(fire('sync', 'quest-points')).rejects.toThrow('awards still queued after 200 ms (last: the relay: HTTP 503)');
    expect(relay.sentKeys().length).toBeGreaterThan(1);
    expect(new Set(relay.sentKeys())).toEqual(new Set(keysOf(awards)));
    expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
  });

  it('a token refused by the relay is fetched again once from tokenUrl', async () => {
    const { awards, outbox, relay, fire, tokenCount } = await setup([5], {
      relay: (req) => (req.headers.authorization === 'Bearer stale.token.x' ? json(401, { success: false, message: 'token expired' }) : undefined),
      token: (n) => tokenAnswer(n === 1 ? 'stale.token.x' : jwt('player-1', Date.now() / 1000 + 3600)),
    });
    await fire('sync', 'quest-points');
    expect(tokenCount()).toBe(2);
    expect(relay.sentKeys()).toEqual([...keysOf(awards), ...keysOf(awards)]);
    expect(await outbox.all()).toEqual([]);
  });

  it('tokenUrl answers JSON { token } (other fields ignored, as /__dev/token adds them)', async () => {
    const token = jwt('player-1', Date.now() / 1000 + 3600);
    const { relay, fire } = await setup([5], { token: () => json(200, { token, sub: 'player-1', role: 'player', expiresIn: 900 }) });
    await fire('sync', 'quest-points');
    expect(relay.seen[0]!.headers.authorization).toBe(`Bearer ${token}`);
  });

  it.each([
    ['text/plain', () => new Response(jwt('player-1', Date.now() / 1000 + 3600)), /tokenUrl answered text\/plain.*not JSON \{ "token": "\.\.\." \}/],
    ['an HTML page', () => new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }), /tokenUrl answered text\/html/],
    ['JSON without token', () => json(200, { success: true, data: { token: 'x.y.z' } }), /tokenUrl answered JSON without a string "token"/],
  ])('tokenUrl answering %s fails the event at once, naming the format; nothing is sent', async (_what, token, message) => {
    const { awards, outbox, relay, fire, tokenCount } = await setup([5], { token });
    await expect(fire('sync', 'quest-points')).rejects.toThrow(message);
    expect(tokenCount()).toBe(1);
    expect(relay.sentKeys()).toEqual([]);
    expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
  });

  it('tokenUrl unreachable (offline) is retried within the event like a send; delivered once it answers', async () => {
    const { awards, outbox, relay, fire, tokenCount } = await setup([5, 6], {
      token: (n) => {
        if (n <= 2) throw new TypeError('Failed to fetch');
        return tokenAnswer(jwt('player-1', Date.now() / 1000 + 3600));
      },
    });
    await fire('sync', 'quest-points');
    expect(tokenCount()).toBe(3);
    expect(relay.sentKeys()).toEqual(keysOf(awards));
    expect(await outbox.all()).toEqual([]);
  });

  it.each([401, 403])(
    'tokenUrl answering %i (no session): the event fails at once, says why to the pages and the console; the awards stay',
    async (status) => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const { awards, outbox, relay, fire, messages, tokenCount } = await setup([5], { token: () => new Response('login first', { status }) });
      await expect(fire('sync', 'quest-points')).rejects.toThrow(`tokenUrl answered HTTP ${status}`);
      expect(tokenCount()).toBe(1);
      expect(relay.sentKeys()).toEqual([]);
      expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
      await vi.waitFor(() =>
        expect(messages).toEqual([
          { t: 'sync-failed', failure: { reason: 'auth', message: `getToken() failed: tokenUrl answered HTTP ${status}`, queueSize: 1 } },
        ]),
      );
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(
          new RegExp(
            `^\\[quest-points/sw\\] sync event given up \\(auth\\): getToken\\(\\) failed: tokenUrl answered HTTP ${status}\\. 1 award\\(s\\) stay queued`,
          ),
        ),
      );
    },
  );

  it.each<[number, Record<string, string>]>([
    [503, { 'retry-after': '0.2' }],
    [429, { 'retry-after': '0.2' }],
    [500, {}],
    [408, {}],
  ])('tokenUrl answering %i is retried within the event (Retry-After honoured); delivered once it answers', async (status, headers) => {
    const { awards, outbox, relay, fire, tokenCount, tokenTimes, messages } = await setup([5, 6], {
      token: (n) => (n <= 2 ? new Response('busy', { status, headers }) : tokenAnswer(jwt('player-1', Date.now() / 1000 + 3600))),
      // Retry-After is honoured up to maxMs (protocol/retry.ts): a maximum above the 200 ms asked for.
      options: { backoff: { baseMs: 5, maxMs: 1000 } },
    });
    await fire('sync', 'quest-points');
    expect(tokenCount()).toBe(3);
    expect(relay.sentKeys()).toEqual(keysOf(awards));
    expect(await outbox.all()).toEqual([]);
    // The backoff here starts at 5 ms (two attempts: at most 20 ms): a wait of 200 ms or more between fetches is the Retry-After.
    const gaps = tokenTimes.slice(1).map((t, i) => t - tokenTimes[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(headers['retry-after'] ? 190 : 0);
    await vi.waitFor(() => expect(messages).toEqual([{ t: 'done', ok: keysOf(awards), dead: [] }]));
  });

  it('tokenUrl not answering within timeoutMs is retried within the event; delivered once it answers', async () => {
    const { awards, outbox, relay, fire, tokenCount } = await setup([7], {
      options: { timeoutMs: 100 },
      token: (n, init) =>
        n === 1
          ? new Promise<Response>((_, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)))
          : tokenAnswer(jwt('player-1', Date.now() / 1000 + 3600)),
    });
    await fire('sync', 'quest-points');
    expect(tokenCount()).toBe(2);
    expect(relay.sentKeys()).toEqual(keysOf(awards));
    expect(await outbox.all()).toEqual([]);
  });

  it('tokenUrl failing past the budget: the event is given up naming the last failure, to the pages and the console', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { awards, outbox, relay, fire, messages, tokenCount } = await setup([1, 2], {
      token: () => new Response('down', { status: 503 }),
      options: { budgetMs: 150 },
    });
    const message = 'awards still queued after 150 ms (last: getToken() failed: tokenUrl answered HTTP 503): left for the next sync';
    await expect(fire('sync', 'quest-points')).rejects.toThrow(message);
    expect(tokenCount()).toBeGreaterThan(1);
    expect(relay.sentKeys()).toEqual([]);
    expect(keysOf(await outbox.all()).sort()).toEqual(keysOf(awards).sort());
    await vi.waitFor(() => expect(messages).toEqual([{ t: 'sync-failed', failure: { reason: 'budget', message, queueSize: 2 } }]));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`[quest-points/sw] sync event given up (budget): ${message}`));
  });

  it('an open page hears the give-up as the SDK event sync:failed', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { fire, storageName } = await setup([1], { token: () => new Response('login first', { status: 401 }) });
    const page = createQuestPoints({
      relayUrl: 'https://game.test/api',
      getToken: () => 'unused',
      storageName,
      fetch: () => new Promise<Response>(() => {}),
    });
    const heard: SyncFailure[] = [];
    page.on('sync:failed', (failure) => heard.push(failure));
    try {
      await expect(fire('sync', 'quest-points')).rejects.toThrow(/401/);
      await vi.waitFor(() => expect(heard).toEqual([{ reason: 'auth', message: 'getToken() failed: tokenUrl answered HTTP 401', queueSize: 1 }]));
    } finally {
      await page.close();
    }
  });

  it("an award the relay refuses becomes a dead letter with the rule's code (stored before it leaves the outbox); the others are sent", async () => {
    const { awards, outbox, dead, fire, messages } = await setup([1, 5000, 3], {
      relay: (req) =>
        req.path === '/api/batch/points'
          ? json(200, {
              success: true,
              results: batchOf(req).map((a) =>
                a.eventPoints === 5000
                  ? { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 422, message: 'too many points', code: 'budget' }
                  : { idempotencyKey: a.idempotencyKey, outcome: 'ok' },
              ),
            })
          : undefined,
    });
    await fire('sync', 'quest-points');
    expect(await outbox.all()).toEqual([]);
    const letters = await dead.all();
    expect(letters).toEqual([
      expect.objectContaining({
        idempotencyKey: awards[1]!.idempotencyKey,
        eventPoints: 5000,
        status: 422,
        message: 'too many points',
        code: 'budget',
      }),
    ]);
    await vi.waitFor(() => expect(messages).toEqual([{ t: 'done', ok: [awards[0]!.idempotencyKey, awards[2]!.idempotencyKey], dead: letters }]));
  });

  it('a refusal about the deployment (an HTML 404, an origin 403) dead-letters nothing: retried, delivered once it heals', async () => {
    let calls = 0;
    const refusals = [
      () => new Response('<html><body><h1>404 Not Found</h1></body></html>', { status: 404, headers: { 'content-type': 'text/html' } }),
      () => json(403, { success: false, message: "origin https://game.test is not in the relay's CORS allowlist", code: 'origin' }),
      () => new Response(null, { status: 403 }),
    ];
    const { awards, outbox, dead, relay, fire } = await setup([1, 2], {
      relay: (req) => (req.method === 'POST' && calls < 6 ? refusals[calls++ % 3]!() : undefined),
    });
    await fire('sync', 'quest-points');
    expect(await dead.all()).toEqual([]);
    expect(await outbox.all()).toEqual([]);
    expect(new Set(relay.sentKeys())).toEqual(new Set(keysOf(awards)));
  });

  it('a deployment refusal past the budget: the event is given up naming it, the awards stay queued', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { awards, outbox, dead, fire } = await setup([1], {
      relay: () => json(403, { success: false, message: "origin https://game.test is not in the relay's CORS allowlist", code: 'origin' }),
      options: { budgetMs: 200 },
    });
    await expect(fire('sync', 'quest-points')).rejects.toThrow(/last: the deployment refused the queue: HTTP 403 origin https:\/\/game.test/);
    expect(await dead.all()).toEqual([]);
    expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
  });

  it('a 429 with Retry-After: 3456000 (40 days): asked again every maxMs within the budget, then given up, the award kept', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { awards, outbox, relay, fire } = await setup([1], {
      relay: () => json(429, { success: false, message: 'monthly limit' }, { 'retry-after': '3456000' }),
      options: { budgetMs: 300, backoff: { baseMs: 5, maxMs: 50 } },
    });
    await expect(fire('sync', 'quest-points')).rejects.toThrow(/awards still queued after 300 ms \(last: the relay: HTTP 429\)/);
    expect(relay.sentKeys().length).toBeGreaterThanOrEqual(2);
    expect(relay.sentKeys().length).toBeLessThanOrEqual(300 / 50 + 2);
    expect(keysOf(await outbox.all())).toEqual(keysOf(awards));
  });

  it('close() mid-drain with awards left: the event fails (the browser fires it again), it never says delivered', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { awards, outbox, relay, fire } = await setup([1, 2], { relay: () => json(503, { success: false, message: 'busy' }) });
    const event = fire('sync', 'quest-points')!;
    const outcome = event.then(
      () => 'delivered',
      (error: Error) => `failed: ${error.message}`,
    );
    await vi.waitFor(() => expect(relay.sentKeys().length).toBeGreaterThan(0));
    running.pop()!.close();
    expect(await outcome).toBe('failed: closed with 2 award(s) queued');
    expect(keysOf(await outbox.all()).sort()).toEqual(keysOf(awards).sort());
  });

  it('two events at once make one drain', async () => {
    const { awards, relay, fire } = await setup([1, 2]);
    await Promise.all([fire('sync', 'quest-points'), fire('periodicsync', 'quest-points')]);
    expect(relay.sentKeys()).toEqual(keysOf(awards));
  });

  it("an event that arrives during an earlier one's drain gets a budget of its own", async () => {
    // 503 until `healthy`: the first event's 300 ms run out while it retries; the second, fired 200 ms in, joins
    // the same drain (nothing is sent twice) but still has time when the relay comes back at 400 ms.
    let healthy = false;
    vi.spyOn(console, 'warn').mockImplementation(() => {});
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
    const sends = relay.seen.filter((r) => r.path === '/api/batch/points').map((r) => keysOf(batchOf(r)));
    expect(sends.length).toBeGreaterThan(2);
    for (const sent of sends) expect(sent).toEqual(keysOf(awards));
  });
});

describe('registerQuestPointsSync: awards belong to their player', () => {
  /** The token's subject, as the relay reads it (the test's JWTs are unsigned). */
  const subOf = (authorization = '') =>
    JSON.parse(
      atob(
        authorization
          .replace(/^Bearer /, '')
          .split('.')[1]!
          .replace(/-/g, '+')
          .replace(/_/g, '/'),
      ),
    ).sub;

  it("a switch of player while the worker drains: the other player's awards are never dead-lettered, and go with their player's token", async () => {
    let signedIn = 'bob';
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let batches = 0;
    /** What each award went with: [user, the token's sub]. */
    const carried: [string, string][] = [];
    const { awards, outbox, dead, fire } = await setup([1, 2, 3, 4], {
      users: ['alice', 'bob', 'alice', 'bob'],
      token: () => tokenAnswer(jwt(signedIn, Date.now() / 1000 + 3600)),
      relay: async (req) => {
        if (req.path !== '/api/batch/points') return undefined;
        if (batches++ === 0) await gate;
        const sub = subOf(req.headers.authorization);
        const results = batchOf(req).map((a) => {
          carried.push([a.serviceUserId, sub]);
          return a.serviceUserId === sub
            ? { idempotencyKey: a.idempotencyKey, outcome: 'ok' }
            : { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 403, message: "serviceUserId is not the token's sub", code: 'player' };
        });
        return json(200, { success: true, results });
      },
    });
    const first = fire('sync', 'quest-points');
    await vi.waitFor(() => expect(batches).toBe(1));
    // bob signs out and alice in while the worker's batch (bob's token) is in flight.
    signedIn = 'alice';
    release();
    await first;
    expect(await dead.all()).toEqual([]);
    const aliceKeys = keysOf(awards.filter((a) => a.serviceUserId === 'alice'));
    expect(keysOf(await outbox.all()).sort()).toEqual([...aliceKeys].sort());
    // The next event (alice's page registered it) carries hers with her token.
    await fire('sync', 'quest-points');
    expect(await outbox.all()).toEqual([]);
    expect(await dead.all()).toEqual([]);
    const delivered = carried.filter(([user, sub]) => user === sub).map(([user]) => user);
    expect(delivered.sort()).toEqual(['alice', 'alice', 'bob', 'bob']);
  });
});
