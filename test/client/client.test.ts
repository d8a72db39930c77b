// @vitest-environment happy-dom
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { createQuestPoints, pointsKey, QuestPointsError, type QuestPoints } from '../../src/client/index.js';
import { awardsIn, batchOf, fakeRelay, json, jwt, testClients, uniqueName, until, type Seen } from './fake-relay.js';
import type { AwardBody, IdentifyBody } from '../../src/protocol/index.js';

const { client, closeAll } = testClients();
const open: QuestPoints[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await closeAll();
});

describe('award() validation', () => {
  it.each([
    [{ eventPoints: '5' }, 'eventPoints', /eventPoints must be a number/],
    [{ eventPoints: Infinity }, 'eventPoints', /finite/],
    [{ eventPoints: 1, questId: '' }, 'questId', /questId must be at least 1 character/],
    [{ eventPoints: 1, serviceUserId: 'a\u0000b' }, 'serviceUserId', /control characters/],
    [{ eventPoints: 1, eventName: 'x'.repeat(129) }, 'eventName', /at most 128/],
    [{ eventPoints: 1, eventDescription: 'x'.repeat(2049) }, 'eventDescription', /at most 2048/],
  ])('%j throws naming %s, and queues nothing', async (input, field, message) => {
    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch });
    let error: unknown;
    try {
      qp.award(input as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(QuestPointsError);
    expect((error as QuestPointsError).field).toBe(field);
    expect((error as QuestPointsError).message).toMatch(message);
    expect(await qp.pending()).toEqual([]);
    expect(qp.getSnapshot().queueSize).toBe(0);
  });

  it('a missing serviceUserId without a default says it is required', () => {
    const qp = client({ fetch: fakeRelay().fetch, serviceUserId: undefined });
    expect(() => qp.award({ eventPoints: 1 })).toThrow(/serviceUserId is required/);
  });

  it('returns at once with a UUID key; settled resolves when the relay acknowledged it', async () => {
    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch });
    const { idempotencyKey, settled } = qp.award({ eventPoints: 5, eventName: 'kill' });
    expect(idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(await settled).toEqual({ outcome: 'sent', status: 'sent', idempotencyKey });
    const sent = relay.seen.find((r) => r.method === 'POST')!;
    expect(sent.path).toBe('/api/group-quests/quest-1/points');
    expect(sent.headers['idempotency-key']).toBe(idempotencyKey);
    expect(sent.headers.authorization).toMatch(/^Bearer e30\./);
    expect(sent.body).toEqual({ serviceUserId: 'player-1', eventPoints: 5, eventName: 'kill' });
    expect(await qp.pending()).toEqual([]);
  });

  it('throws a clear error on a full queue and evicts nothing', async () => {
    const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch, maxQueue: 2 });
    qp.award({ eventPoints: 1 });
    qp.award({ eventPoints: 2 });
    expect(() => qp.award({ eventPoints: 3 })).toThrow(expect.objectContaining({ code: 'queue-full' }));
    expect((await qp.pending()).map((a) => a.eventPoints)).toEqual([1, 2]);
  });
});

describe('flushing', () => {
  it('sends awards of one tick in one batch, in order, and empties the outbox only after the acknowledgement', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const relay = fakeRelay(async (req) => {
      if (req.path === '/api/batch/points') await gate;
      return undefined;
    });
    const qp = client({ fetch: relay.fetch });
    const keys = [1, 2, 3].map((n) => qp.award({ eventPoints: n }).idempotencyKey);
    await until(() => relay.seen.length > 0);
    expect((await qp.pending()).map((a) => a.idempotencyKey)).toEqual(keys);
    release();
    await qp.flush();
    await until(async () => (await qp.pending()).length === 0);
    expect(relay.sentKeys()).toEqual(keys);
    expect(relay.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('survives a reload: a new client on the same storage name resends the same keys', async () => {
    const storageName = uniqueName();
    const down = fakeRelay(() => json(503, { success: false, message: 'down' }));
    const first = client({ fetch: down.fetch, storageName });
    const keys = [first.award({ eventPoints: 1 }).idempotencyKey, first.award({ eventPoints: 2 }).idempotencyKey];
    // The awards' send, not the start-up read: both go out at start, in either order.
    await until(() => down.sentKeys().length >= 2);
    await first.close();
    const up = fakeRelay();
    const second = client({ fetch: up.fetch, storageName });
    await until(async () => up.sentKeys().length === 2);
    expect(up.sentKeys()).toEqual(keys);
    expect(down.sentKeys().slice(0, 2)).toEqual(keys);
    await until(async () => (await second.pending()).length === 0);
  });

  it('two storage names never mix their outboxes', async () => {
    const a = client({ fetch: fakeRelay(() => json(503, {})).fetch });
    const b = client({ fetch: fakeRelay(() => json(503, {})).fetch });
    a.award({ eventPoints: 1 });
    b.award({ eventPoints: 2 });
    b.award({ eventPoints: 3 });
    await until(async () => (await a.pending()).length === 1 && (await b.pending()).length === 2);
    expect((await a.pending()).map((x) => x.eventPoints)).toEqual([1]);
  });

  it('dead-letters a refused award with its status and message, emits award:rejected, and keeps the others flowing', async () => {
    const relay = fakeRelay((req) =>
      req.path === '/api/batch/points'
        ? json(200, {
            success: true,
            results: batchOf(req).map((a) =>
              a.eventPoints === 2
                ? { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 403, message: 'eventName is not allowed' }
                : { idempotencyKey: a.idempotencyKey, outcome: 'ok' },
            ),
          })
        : undefined,
    );
    const qp = client({ fetch: relay.fetch });
    const rejected: unknown[] = [];
    qp.on('award:rejected', (e) => rejected.push(e.deadLetter));
    const [, bad] = [1, 2, 3].map((n) => qp.award({ eventPoints: n }));
    expect(await bad!.settled).toMatchObject({
      outcome: 'rejected',
      idempotencyKey: bad!.idempotencyKey,
      deadLetter: { status: 403, message: 'eventName is not allowed' },
    });
    const dead = await qp.deadLetters();
    expect(dead).toMatchObject([{ idempotencyKey: bad!.idempotencyKey, status: 403, eventPoints: 2 }]);
    expect(rejected).toHaveLength(1);
    expect(await qp.pending()).toEqual([]);
    expect(qp.getSnapshot().deadLetterCount).toBe(1);
  });

  it('retryDeadLetter re-queues under a new key; discardDeadLetter drops it', async () => {
    let refuse = true;
    const relay = fakeRelay(() => (refuse ? json(422, { success: false, message: 'eventPoints must be at most 100' }) : undefined));
    const qp = client({ fetch: relay.fetch });
    const first = qp.award({ eventPoints: 500 });
    expect((await first.settled).status).toBe('rejected');
    refuse = false;
    const newKey = await qp.retryDeadLetter(first.idempotencyKey);
    expect(newKey).not.toBe(first.idempotencyKey);
    await until(async () => relay.sentKeys().includes(newKey) && (await qp.pending()).length === 0);
    expect(await qp.deadLetters()).toEqual([]);
    refuse = true;
    const second = qp.award({ eventPoints: 501 });
    await second.settled;
    await qp.discardDeadLetter(second.idempotencyKey);
    expect(await qp.deadLetters()).toEqual([]);
    await expect(qp.retryDeadLetter('nope')).rejects.toThrow(/not a dead letter/);
  });

  it('discardDeadLetter: an unknown or already discarded key leaves deadLetterCount alone; every tab follows a discard', async () => {
    const relay = fakeRelay((req) => (req.method === 'POST' ? json(403, { success: false, message: 'not allowed' }) : undefined));
    const storageName = uniqueName();
    const a = client({ fetch: relay.fetch, storageName });
    const b = client({ fetch: relay.fetch, storageName });
    const first = a.award({ eventPoints: 1 });
    const second = a.award({ eventPoints: 2 });
    expect((await first.settled).outcome).toBe('rejected');
    expect((await second.settled).outcome).toBe('rejected');
    await until(() => a.getSnapshot().deadLetterCount === 2 && b.getSnapshot().deadLetterCount === 2);
    await a.discardDeadLetter(first.idempotencyKey);
    expect(a.getSnapshot().deadLetterCount).toBe(1);
    await a.discardDeadLetter(first.idempotencyKey);
    await a.discardDeadLetter('00000000-0000-4000-8000-000000000000');
    expect(a.getSnapshot().deadLetterCount).toBe(1);
    expect((await a.deadLetters()).map((d) => d.idempotencyKey)).toEqual([second.idempotencyKey]);
    await until(() => b.getSnapshot().deadLetterCount === 1);
  });

  it('a batch refused as a whole (400) is sent one by one so only the bad award is dead-lettered', async () => {
    const relay = fakeRelay((req) => {
      if (req.path === '/api/batch/points') return json(400, { success: false, message: 'awards.1.eventName must be at most 128 characters' });
      if ((req.body as AwardBody | undefined)?.eventPoints === 2) return json(400, { success: false, message: 'bad award' });
      return undefined;
    });
    const qp = client({ fetch: relay.fetch });
    const handles = [1, 2, 3].map((n) => qp.award({ eventPoints: n }));
    const outcomes = await Promise.all(handles.map((h) => h.settled));
    expect(outcomes.map((o) => o.status)).toEqual(['sent', 'rejected', 'sent']);
    expect(relay.sentKeys()).toEqual([...handles.map((h) => h.idempotencyKey), ...handles.map((h) => h.idempotencyKey)]);
  });

  it.each([408, 409, 429, 500, 503])('%i is retried with the same key, honouring Retry-After, until acknowledged', async (status) => {
    let failures = 2;
    // Only awards fail: the client also reads its pair at start-up.
    const relay = fakeRelay((req) =>
      req.method === 'POST' && failures-- > 0 ? json(status, { success: false, message: 'later' }, { 'retry-after': '0.03' }) : undefined,
    );
    // Retry-After is honoured up to backoff.maxMs (protocol/retry.ts): a maximum above the 30 ms asked for.
    const qp = client({ fetch: relay.fetch, backoff: { baseMs: 5, maxMs: 100 } });
    const retrying: { attempt: number; delayMs: number; status?: number }[] = [];
    qp.on('award:retrying', (e) => retrying.push(e));
    const { idempotencyKey, settled } = qp.award({ eventPoints: 1 });
    expect(await settled).toEqual({ outcome: 'sent', status: 'sent', idempotencyKey });
    expect(relay.sentKeys()).toEqual([idempotencyKey, idempotencyKey, idempotencyKey]);
    expect(retrying.map((r) => r.attempt)).toEqual([1, 2]);
    expect(retrying.every((r) => r.delayMs >= 30 && r.status === status)).toBe(true);
  });

  it('a batch that acknowledged some awards restarts the backoff; one that settled none grows it', async () => {
    // Batch 1: nothing settled. Batch 2: the first award ok, the others to retry (progress). Batch 3: all ok.
    let batch = 0;
    const relay = fakeRelay((req) => {
      if (req.path !== '/api/batch/points') return undefined;
      batch++;
      const results = batchOf(req).map((a, i) =>
        batch === 3 || (batch === 2 && i === 0)
          ? { idempotencyKey: a.idempotencyKey, outcome: 'ok' }
          : { idempotencyKey: a.idempotencyKey, outcome: 'retry', reason: 'upstream_error' },
      );
      return json(200, { success: true, results });
    });
    const qp = client({ fetch: relay.fetch });
    const attempts: number[] = [];
    qp.on('award:retrying', (e) => attempts.push(e.attempt));
    const handles = [qp.award({ eventPoints: 1 }), qp.award({ eventPoints: 2 }), qp.award({ eventPoints: 3 })];
    await Promise.all(handles.map((h) => h.settled));
    // Batch 1 retries its 3 awards at attempt 1; batch 2 made progress, so its 2 retries start over at attempt 1.
    expect(attempts).toEqual([1, 1, 1, 1, 1]);
  });

  it('a network failure or a timeout is retried; connection:changed reports it', async () => {
    let calls = 0;
    const relay = fakeRelay(async () => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed');
      // Never answers: only the SDK's own timeout (timeoutMs) ends this attempt.
      if (calls === 2) await new Promise(() => {});
      return undefined;
    });
    // No default pair: no start-up read, so every request here is the award's.
    const qp = client({ fetch: relay.fetch, timeoutMs: 50, serviceUserId: undefined });
    const reasons: string[] = [];
    const online: boolean[] = [];
    qp.on('award:retrying', (e) => reasons.push(e.reason));
    qp.on('connection:changed', (e) => online.push(e.online));
    expect((await qp.award({ eventPoints: 1, serviceUserId: 'player-1' }).settled).status).toBe('sent');
    expect(reasons).toEqual(['network', 'timeout']);
    expect(online).toEqual([false, true]);
  });

  it.each(['deadline', 'relay_busy', 'upstream_auth', 'network'])(
    'a batch result of retry with no HTTP status (%s) is an answer: the client stays online',
    async (reason) => {
      let refusals = 1;
      const relay = fakeRelay((req) => {
        if (req.path !== '/api/batch/points' || refusals-- <= 0) return undefined;
        return json(200, { success: true, results: batchOf(req).map((a) => ({ idempotencyKey: a.idempotencyKey, outcome: 'retry', reason })) });
      });
      // No default pair: no start-up read, so every request here is the awards' batch.
      const qp = client({ fetch: relay.fetch, serviceUserId: undefined });
      const online: boolean[] = [];
      const reasons: string[] = [];
      qp.on('connection:changed', (e) => online.push(e.online));
      qp.on('award:retrying', (e) => reasons.push(e.reason));
      const first = qp.award({ eventPoints: 1, serviceUserId: 'player-1' });
      qp.award({ eventPoints: 2, serviceUserId: 'player-1' });
      expect((await first.settled).outcome).toBe('sent');
      expect(reasons).toEqual([reason, reason]);
      expect(online).toEqual([]);
      expect(qp.getSnapshot().online).toBe(true);
    },
  );

  it('an award is never dropped for a retry count', async () => {
    let failures = 12;
    const relay = fakeRelay((req) => (req.method === 'POST' && failures-- > 0 ? json(500, {}) : undefined));
    const qp = client({ fetch: relay.fetch, backoff: { baseMs: 1, maxMs: 2 } });
    expect((await qp.award({ eventPoints: 1 }).settled).status).toBe('sent');
    expect(new Set(relay.sentKeys()).size).toBe(1);
    expect(relay.sentKeys()).toHaveLength(13);
  });

  it('401: fetches a fresh token and resends with the same key', async () => {
    let tokens = 0;
    const relay = fakeRelay((req) =>
      req.headers.authorization === 'Bearer t1' ? json(401, { success: false, message: 'token expired' }) : undefined,
    );
    // No default pair: no start-up read, so the award's request is the first to meet the expired token.
    const qp = client({ fetch: relay.fetch, getToken: () => `t${++tokens}`, serviceUserId: undefined });
    const { idempotencyKey, settled } = qp.award({ eventPoints: 1, serviceUserId: 'player-1' });
    expect((await settled).status).toBe('sent');
    expect(tokens).toBe(2);
    expect(relay.sentKeys()).toEqual([idempotencyKey, idempotencyKey]);
  });

  it('a token is reused until shortly before exp', async () => {
    let tokens = 0;
    const relay = fakeRelay();
    // No default pair, so no reads: the only requests are the awards'.
    const award = (qp: QuestPoints, eventPoints: number) => qp.award({ eventPoints, serviceUserId: 'player-1' }).settled;
    const getToken = (expiresInS: number) => () => {
      tokens++;
      return jwt('p', Date.now() / 1000 + expiresInS);
    };
    const qp = client({ fetch: relay.fetch, serviceUserId: undefined, getToken: getToken(3600) });
    await award(qp, 1);
    await award(qp, 2);
    expect(tokens).toBe(1);
    const soon = client({ fetch: relay.fetch, serviceUserId: undefined, getToken: getToken(10) });
    await award(soon, 1);
    await award(soon, 2);
    expect(tokens).toBe(3);
  });

  it('getToken failing: auth:required, the queue pauses and resumes on flush() once a token works', async () => {
    let fail = true;
    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch, getToken: () => (fail ? Promise.reject(new Error('logged out')) : 'ok-token') });
    const auth: unknown[] = [];
    qp.on('auth:required', (e) => auth.push(e.error));
    const { settled } = qp.award({ eventPoints: 1 });
    await until(() => auth.length === 1);
    expect(qp.getSnapshot().authRequired).toBe(true);
    expect(String(auth[0])).toMatch(/logged out/);
    expect(relay.seen).toHaveLength(0);
    fail = false;
    await qp.flush();
    expect((await settled).status).toBe('sent');
    expect(qp.getSnapshot().authRequired).toBe(false);
  });

  it('a snapshot holds the status and the queue, not the life cycle of the client', () => {
    const qp = client({ fetch: fakeRelay().fetch });
    expect(Object.keys(qp.getSnapshot()).sort()).toEqual([
      'authRequired',
      'deadLetterCount',
      'deploymentRefused',
      'environment',
      'online',
      'points',
      'queueSize',
      'storage',
    ]);
  });

  it('works in memory (Node-like) and emits the queue events', async () => {
    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch, storage: 'memory' });
    const events: string[] = [];
    for (const name of ['award:queued', 'award:sent', 'queue:changed', 'queue:drained'] as const) qp.on(name, () => events.push(name));
    await qp.award({ eventPoints: 1 }).settled;
    await until(() => events.includes('queue:drained'));
    expect(events.slice(0, 2)).toEqual(['award:queued', 'queue:changed']);
    expect(events).toContain('award:sent');
    expect(qp.getSnapshot().storage).toBe('memory');
  });
});

describe('reads', () => {
  const points = { totalPoints: 10, history: [{ createdAt: '2024-01-01T00:00:00.000Z', eventPoints: 10, eventName: 'a', eventDescription: '' }] };
  const readRelay = (extra?: (req: Seen) => Response | undefined) =>
    fakeRelay((req) => {
      const custom = extra?.(req);
      if (custom) return custom;
      if (req.method === 'GET' && req.path === '/api/group-quests/quest-1/points/player-1') return json(200, { success: true, data: points });
      if (req.path === '/api/users/identify') {
        const body = req.body as IdentifyBody;
        return json(200, { success: true, data: { serviceUserId: `user-${body.email ?? body.wallet?.address}` } });
      }
      if (req.path === '/api/group-quests/quest-1/enrolled-users/player-1')
        return json(200, { success: true, data: { serviceUserId: 'player-1', enrolled: true, currentPoints: 10 } });
      if (req.path.startsWith('/api/group-quests/quest-1/enrolled-users/'))
        return json(404, { success: false, message: 'User is not enrolled in the quest' });
      return undefined;
    });

  it('getPoints: confirmed plus pending, each marked', async () => {
    const relay = readRelay((req) => (req.method === 'POST' ? json(503, {}) : undefined));
    const qp = client({ fetch: relay.fetch });
    const { idempotencyKey } = qp.award({ eventPoints: 0.2, eventName: 'coin' });
    qp.award({ eventPoints: 0.1 });
    const view = await qp.getPoints();
    expect(view).toMatchObject({ confirmedPoints: 10, pendingPoints: 0.3, totalPoints: 10.3, stale: false });
    expect(view.pending.map((a) => [a.eventPoints, a.eventName])).toEqual([
      [0.1, undefined],
      [0.2, 'coin'],
    ]);
    expect(view.pending[1]!.idempotencyKey).toBe(idempotencyKey);
    // Newest first: this client's pending awards, then the service's confirmed history.
    expect(view.history.map((e) => [e.eventPoints, e.eventName, e.state])).toEqual([
      [0.1, 'DefaultPointsEvent', 'pending'],
      [0.2, 'coin', 'pending'],
      [10, 'a', 'confirmed'],
    ]);
    expect(view.history[1]!.idempotencyKey).toBe(idempotencyKey);
  });

  it('getPoints encodes hostile ids as one path segment', async () => {
    const relay = readRelay(() => json(200, { success: true, data: { totalPoints: 0, history: [] } }));
    const qp = client({ fetch: relay.fetch });
    await qp.getPoints('../users/identify', 'a/b');
    expect(relay.seen.at(-1)!.path).toBe('/api/group-quests/..%2Fusers%2Fidentify/points/a%2Fb');
  });

  it('getEnrollment: the status, or null for the 404', async () => {
    const qp = client({ fetch: readRelay().fetch });
    expect(await qp.getEnrollment()).toEqual({ serviceUserId: 'player-1', enrolled: true, currentPoints: 10 });
    expect(await qp.getEnrollment('quest-1', 'someone-else')).toBeNull();
  });

  it('identify validates, then is cached and answers offline', async () => {
    let offline = false;
    const relay = readRelay(() =>
      offline
        ? (() => {
            throw new TypeError('offline');
          })()
        : undefined,
    );
    const qp = client({ fetch: relay.fetch });
    await expect(qp.identify({ email: 'a@b.co', wallet: { address: '0x1', chain: 'eth' } } as never)).rejects.toThrow(
      /exactly one of email or wallet/,
    );
    expect(await qp.identify({ email: 'a@b.co' })).toBe('user-a@b.co');
    offline = true;
    expect(await qp.identify({ email: 'a@b.co' })).toBe('user-a@b.co');
    await expect(qp.identify({ wallet: { address: '0xabc', chain: 'eth' } })).rejects.toThrow(QuestPointsError);
  });

  it('enrolledUsers pages by offset until the last page', async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ serviceUserId: `u${i}`, email: null }));
    const relay = fakeRelay((req) => {
      const url = new URL(req.path, 'http://x');
      if (url.pathname !== '/api/group-quests/quest-1/enrolled-users') return undefined;
      const limit = Number(url.searchParams.get('limit'));
      const offset = Number(url.searchParams.get('offset'));
      const data = all.slice(offset, offset + limit);
      return json(200, {
        success: true,
        data,
        pagination: { limit, offset, nextPage: offset + limit < all.length ? 'next' : null, previousPage: null },
      });
    });
    const qp = client({ fetch: relay.fetch });
    const pages: string[][] = [];
    for await (const page of qp.enrolledUsers('quest-1', { limit: 2 })) pages.push(page.map((u) => u.serviceUserId));
    expect(pages).toEqual([['u0', 'u1'], ['u2', 'u3'], ['u4']]);
  });

  it('the own pair is live from the start: read, queued, acknowledged (sent), then confirmed by one read after the drain', async () => {
    let total = 10;
    const relay = readRelay((req) => {
      if (req.method === 'POST') total += (req.body as AwardBody).eventPoints;
      if (req.method === 'GET' && req.path.includes('/points/')) return json(200, { success: true, data: { totalPoints: total, history: [] } });
      return undefined;
    });
    const qp = client({ fetch: relay.fetch });
    const key = pointsKey('quest-1', 'player-1');
    // The snapshot holds the client's own pair from the start, with no watchPoints() call.
    expect(Object.keys(qp.getSnapshot().points)).toEqual([key]);
    const seen: [number, number, number, number][] = [];
    qp.on('points:changed', ({ view }) => seen.push([view.totalPoints, view.confirmedPoints, view.sentPoints, view.pendingPoints]));
    await until(() => qp.getSnapshot().points[key]?.confirmedPoints === 10);
    const before = qp.getSnapshot();
    expect(qp.getSnapshot()).toBe(before); // stable between changes (useSyncExternalStore)
    const reads = () => relay.seen.filter((r) => r.method === 'GET').length;
    const readsBefore = reads();
    qp.award({ eventPoints: 5 });
    await until(() => qp.getSnapshot().points[key]?.confirmedPoints === 15);
    expect(qp.getSnapshot()).not.toBe(before);
    expect(qp.getSnapshot().points[key]).toMatchObject({ totalPoints: 15, confirmedPoints: 15, sentPoints: 0, pendingPoints: 0, stale: false });
    // Nothing known (no cache) -> read -> pending -> sent (acknowledged, no read yet) -> confirmed; never a dip.
    expect(seen).toEqual([
      [0, 0, 0, 0],
      [10, 10, 0, 0],
      [15, 10, 0, 5],
      [15, 10, 5, 0],
      [15, 15, 0, 0],
    ]);
    expect(reads() - readsBefore).toBe(1); // one read for the drain, none per batch
  });

  it('other tabs see the same live view: acknowledgements and accepted reads arrive over the BroadcastChannel', async () => {
    let total = 10;
    const history: { createdAt: string; eventPoints: number; eventName: string; eventDescription: string }[] = [];
    const relay = readRelay((req) => {
      if (req.method === 'POST')
        for (const a of awardsIn(req)) {
          total += a.eventPoints;
          history.unshift({
            createdAt: new Date().toISOString(),
            eventPoints: a.eventPoints,
            eventName: a.eventName ?? 'DefaultPointsEvent',
            eventDescription: '',
          });
        }
      if (req.method === 'GET' && req.path.includes('/points/')) return json(200, { success: true, data: { totalPoints: total, history } });
      return undefined;
    });
    const storageName = uniqueName();
    const a = client({ fetch: relay.fetch, storageName });
    const b = client({ fetch: relay.fetch, storageName });
    const reads = () => relay.seen.filter((r) => r.method === 'GET').length;
    const states: string[][] = [];
    b.on('points:changed', ({ view }) => states.push(view.history.map((e) => `${e.eventPoints}:${e.state}`)));
    await until(() => b.viewPoints().confirmedPoints === 10 && a.viewPoints().confirmedPoints === 10);
    const readsBefore = reads();
    await a.award({ eventPoints: 3, eventName: 'coin' }).settled;
    await until(() => b.viewPoints().confirmedPoints === 13);
    expect(b.viewPoints()).toMatchObject({ totalPoints: 13, sentPoints: 0, pendingPoints: 0 });
    await until(() => a.viewPoints().confirmedPoints === 13);
    // Tab B followed the award to confirmed (as pending and sent first, unless A's acknowledgement overtook its own
    // 'add' message), never listing it twice; one read served both tabs (the flushing tab's, after its drain; the
    // other adopted it).
    const order = ['3:pending', '3:sent', '3:confirmed'];
    const seen = states.map((h) => h.filter((e) => e.startsWith('3:'))).filter((h) => h.length);
    expect(seen.every((h) => h.length === 1)).toBe(true);
    const steps = seen.map((h) => order.indexOf(h[0]!));
    expect(steps.at(-1)).toBe(2);
    expect(steps).toEqual([...steps].sort());
    expect(reads() - readsBefore).toBe(1);
  });

  it('watchPoints follows another pair, and getSnapshot holds it while watched', async () => {
    const relay = readRelay((req) =>
      req.method === 'GET' && req.path.includes('/points/player-2') ? json(200, { success: true, data: { totalPoints: 7, history: [] } }) : undefined,
    );
    const qp = client({ fetch: relay.fetch });
    const seen: number[] = [];
    const stop = qp.watchPoints('quest-1', 'player-2', (v) => seen.push(v.totalPoints));
    const key = pointsKey('quest-1', 'player-2');
    await until(() => seen.includes(7));
    expect(qp.getSnapshot().points[key]?.totalPoints).toBe(7);
    stop();
    await until(() => qp.getSnapshot().points[key] === undefined);
  });
});

/** Runs fn in a browser without IndexedDB. */
async function withoutIndexedDB(fn: () => Promise<void>) {
  const saved = globalThis.indexedDB;
  // @ts-expect-error simulate a browser without IndexedDB
  delete globalThis.indexedDB;
  try {
    await fn();
  } finally {
    globalThis.indexedDB = saved;
  }
}

/** Runs fn while every IndexedDB write fails as over quota. */
async function withFullDisk(fn: () => Promise<void>) {
  const original = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = () => {
    throw Object.assign(new Error('full'), { name: 'QuotaExceededError' });
  };
  try {
    await fn();
  } finally {
    IDBObjectStore.prototype.put = original;
  }
}

describe('storage and environment', () => {
  it('persisted: true once the award is committed to IndexedDB (read back without the SDK)', async () => {
    const storageName = uniqueName();
    const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch, storageName });
    const { idempotencyKey, persisted } = qp.award({ eventPoints: 3 });
    expect(await persisted).toBe(true);
    const stored = await new Promise<unknown>((resolve, reject) => {
      const open = indexedDB.open(`${storageName}:outbox`);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const get = open.result.transaction('kv').objectStore('kv').get(idempotencyKey);
        get.onsuccess = () => {
          resolve(get.result);
          open.result.close();
        };
        get.onerror = () => reject(get.error);
      };
    });
    expect(stored).toMatchObject({ idempotencyKey, eventPoints: 3 });
  });

  it('reads ask for their commit at once: left to auto-commit, one would hold up a write issued in the same task', async () => {
    const created: IDBTransaction[] = [];
    const committed = new Set<IDBTransaction>();
    const { transaction } = IDBDatabase.prototype;
    const { commit } = IDBTransaction.prototype;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      const tx = transaction.apply(this, args);
      created.push(tx);
      return tx;
    };
    IDBTransaction.prototype.commit = function (this: IDBTransaction) {
      committed.add(this);
      commit.call(this);
    };
    try {
      const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch });
      await qp.pending();
      await qp.award({ eventPoints: 1 }).persisted;
      await qp.deadLetters();
      const reads = created.filter((tx) => tx.mode === 'readonly');
      // Start-up (outbox, dead letters, cache), pending() and deadLetters().
      expect(reads.length).toBeGreaterThanOrEqual(4);
      expect(reads.filter((tx) => !committed.has(tx))).toEqual([]);
    } finally {
      IDBDatabase.prototype.transaction = transaction;
      IDBTransaction.prototype.commit = commit;
    }
  });

  it('pending() follows the store where no message told: an award written elsewhere joins, one deleted elsewhere leaves', async () => {
    const storageName = uniqueName();
    const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch, storageName, backoff: { baseMs: 3_600_000, maxMs: 3_600_000 } });
    // Enough of its own that the one missing record is read by key (a quarter of the store or less).
    const mine = [1, 1, 1, 1, 1].map((eventPoints) => qp.award({ eventPoints }));
    const gone = qp.award({ eventPoints: 2 });
    expect(await gone.persisted).toBe(true);
    const other = { questId: 'quest-1', serviceUserId: 'player-1', eventPoints: 3, idempotencyKey: crypto.randomUUID(), queuedAt: 1, seq: 1 };
    // Another tab's write whose message never came, and another tab's delete.
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(`${storageName}:outbox`);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('kv', 'readwrite');
        tx.objectStore('kv').put(other, other.idempotencyKey);
        tx.objectStore('kv').delete(gone.idempotencyKey);
        tx.oncomplete = () => {
          open.result.close();
          resolve();
        };
        tx.onerror = () => reject(tx.error);
      };
    });
    expect((await qp.pending()).map((a) => a.idempotencyKey)).toEqual([other.idempotencyKey, ...mine.map((a) => a.idempotencyKey)]);
    expect(qp.getSnapshot().queueSize).toBe(6);
    // A new page holds none of them: all six are read (in one getAll).
    const next = client({ fetch: fakeRelay(() => json(503, {})).fetch, storageName, backoff: { baseMs: 3_600_000, maxMs: 3_600_000 } });
    expect((await next.pending()).map((a) => a.idempotencyKey)).toEqual([other.idempotencyKey, ...mine.map((a) => a.idempotencyKey)]);
  });

  it('an award another tab settled, gone from the store before its message came, still settles here when the message comes', async () => {
    const storageName = uniqueName();
    const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch, storageName, backoff: { baseMs: 3_600_000, maxMs: 3_600_000 } });
    const sent: string[] = [];
    qp.on('award:sent', ({ award }) => sent.push(award.idempotencyKey));
    const handle = qp.award({ eventPoints: 4 });
    expect(await handle.persisted).toBe(true);
    // The other tab's delete lands first (settleBatch posts 'done' only then), and pending() reads the store meanwhile.
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(`${storageName}:outbox`);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('kv', 'readwrite');
        tx.objectStore('kv').delete(handle.idempotencyKey);
        tx.oncomplete = () => {
          open.result.close();
          resolve();
        };
        tx.onerror = () => reject(tx.error);
      };
    });
    expect(await qp.pending()).toEqual([]);
    const channel = new BroadcastChannel(`quest-points:${storageName}`);
    channel.postMessage({ t: 'done', ok: [handle.idempotencyKey], dead: [] });
    channel.close();
    let outcome: unknown;
    void handle.settled.then((settled) => {
      outcome = settled;
    });
    await until(() => outcome !== undefined);
    expect(outcome).toMatchObject({ outcome: 'sent', idempotencyKey: handle.idempotencyKey });
    expect(sent).toEqual([handle.idempotencyKey]);
  });

  it('award:queued is emitted synchronously inside award(), before the commit', async () => {
    const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch });
    const seen: string[] = [];
    qp.on('award:queued', ({ award }) => seen.push(`queued ${award.eventPoints}`));
    const { persisted } = qp.award({ eventPoints: 4 });
    seen.push('returned');
    void persisted.then((ok) => seen.push(`persisted ${ok}`));
    expect(seen).toEqual(['queued 4', 'returned']);
    await persisted;
    expect(seen).toEqual(['queued 4', 'returned', 'persisted true']);
  });

  it('persisted: false with memory storage', async () => {
    const qp = client({ fetch: fakeRelay().fetch, storage: 'memory' });
    const { persisted, settled } = qp.award({ eventPoints: 1 });
    expect(await persisted).toBe(false);
    expect((await settled).status).toBe('sent');
  });

  it('persisted: false when IndexedDB is missing (storage degraded)', async () => {
    await withoutIndexedDB(async () => {
      const qp = client({ fetch: fakeRelay().fetch, storage: 'indexeddb' });
      expect(await qp.award({ eventPoints: 1 }).persisted).toBe(false);
    });
  });

  it('persisted: false when the store fails the write; true again after it recovers', async () => {
    const qp = client({ fetch: fakeRelay(() => json(503, {})).fetch, pollIntervalMs: 20 });
    const degraded: string[] = [];
    qp.on('storage:degraded', (e) => degraded.push(e.reason));
    await withFullDisk(async () => {
      expect(await qp.award({ eventPoints: 1 }).persisted).toBe(false);
      expect(await qp.award({ eventPoints: 2 }).persisted).toBe(false);
      expect(degraded).toEqual(['quota']);
    });
    await until(() => qp.getSnapshot().storage === 'indexeddb');
    expect(await qp.award({ eventPoints: 3 }).persisted).toBe(true);
  });

  it('IndexedDB missing: keeps working in memory and says so', async () => {
    await withoutIndexedDB(async () => {
      const relay = fakeRelay();
      const qp = client({ fetch: relay.fetch, storage: 'indexeddb' });
      const degraded: string[] = [];
      qp.on('storage:degraded', (e) => degraded.push(e.reason));
      expect((await qp.award({ eventPoints: 1 }).settled).status).toBe('sent');
      expect(degraded).toEqual(['unavailable']);
      expect(qp.getSnapshot().storage).toBe('degraded');
    });
  });

  it('a failing store (quota): storage:degraded, awards still sent from memory', async () => {
    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch });
    const degraded: string[] = [];
    qp.on('storage:degraded', (e) => degraded.push(e.reason));
    await withFullDisk(async () => {
      expect((await qp.award({ eventPoints: 1 }).settled).status).toBe('sent');
      expect(degraded).toEqual(['quota']);
    });
  });

  it('direct mode is refused in a browser unless dangerouslyAllowBrowser', async () => {
    const direct = { url: 'https://service.test', apiKey: 'k' };
    expect(() => createQuestPoints({ direct })).toThrow(/refused in a browser/);
    const relay = fakeRelay();
    const qp = createQuestPoints({ direct, dangerouslyAllowBrowser: true, storage: 'memory', fetch: relay.fetch, flushDelayMs: 1 });
    open.push(qp);
    const { settled } = qp.award({ questId: 'quest-1', serviceUserId: 'player-1', eventPoints: 1 });
    expect((await settled).status).toBe('sent');
    // Straight to the service with its API key: the spec's single-award path, no relay batch endpoint.
    expect(relay.seen.map((r) => [r.method, r.path, r.headers.api_key])).toEqual([['POST', '/group-quests/quest-1/points', 'k']]);
  });

  it('two tabs: one flusher, both see the queue', async () => {
    const storageName = uniqueName();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const relay = fakeRelay(async () => {
      await gate;
      return undefined;
    });
    const a = client({ fetch: relay.fetch, storageName });
    const b = client({ fetch: relay.fetch, storageName });
    const keys = [a.award({ eventPoints: 1 }).idempotencyKey, b.award({ eventPoints: 2 }).idempotencyKey];
    await until(() => a.getSnapshot().queueSize === 2 && b.getSnapshot().queueSize === 2);
    const flushes = [a.flush(), b.flush()];
    // Both tabs have asked to flush while one batch is held at the relay: let it through only then.
    await until(() => relay.seen.some((r) => r.path === '/api/batch/points'));
    release();
    await Promise.all(flushes);
    await until(async () => (await a.pending()).length === 0 && b.getSnapshot().queueSize === 0);
    // Every key went out exactly once: no two tabs flushed the same award concurrently.
    expect(relay.sentKeys().sort()).toEqual([...keys].sort());
  });

  it('a large commit reaches the other tabs in parts of at most 1,000 awards, every award once', async () => {
    const storageName = uniqueName();
    const down = fakeRelay(() => json(503, { success: false, message: 'down' }));
    const a = client({ fetch: down.fetch, storageName, backoff: { baseMs: 3_600_000, maxMs: 3_600_000 } });
    const b = client({ fetch: down.fetch, storageName });
    const heard: string[][] = [];
    const channel = new BroadcastChannel(`quest-points:${storageName}`);
    channel.onmessage = (event: MessageEvent<{ t: string; recs?: { idempotencyKey: string }[] }>) => {
      if (event.data.t === 'add') heard.push(event.data.recs!.map((r) => r.idempotencyKey));
    };
    try {
      const keys = Array.from({ length: 2_500 }, () => a.award({ eventPoints: 1 }).idempotencyKey);
      await until(() => heard.flat().length === keys.length);
      expect(heard.map((part) => part.length)).toEqual([1_000, 1_000, 500]);
      expect(heard.flat()).toEqual(keys);
      await until(() => b.getSnapshot().queueSize === keys.length);
    } finally {
      channel.close();
    }
  });
});
