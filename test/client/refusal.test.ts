// @vitest-environment happy-dom
// Whose refusal is it (protocol/refusal.ts, status.ts answerHandling): only a refusal about the award itself
// dead-letters it. A refusal about the deployment holds the queue, says so, and heals without a reload.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../src/client/index.js';
import { answerHandling } from '../../src/protocol/index.js';
import { batchOf, fakeRelay, json, testClients, until, type Seen } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

const ORIGIN_MESSAGE = "origin http://localhost:5173 is not in the relay's CORS allowlist";
const html = (status: number, title: string) =>
  new Response(`<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`, {
    status,
    headers: { 'content-type': 'text/html' },
  });

/** What a deployment answers every award with until it is fixed, and whether the client calls that a held queue. */
const DEPLOYMENT_REFUSALS: [string, () => Response, boolean][] = [
  ["the relay's 403 origin refusal (code origin)", () => json(403, { success: false, message: ORIGIN_MESSAGE, code: 'origin' }), true],
  ["an older relay's 403 origin refusal (no code, its message)", () => json(403, { success: false, message: ORIGIN_MESSAGE }), true],
  ["the relay's 404 for a wrong mount path (code route)", () => json(404, { success: false, message: 'no route POST /qp/x', code: 'route' }), true],
  ["a proxy's HTML 404", () => html(404, '404 Not Found'), true],
  ["a proxy's HTML 502 (a 5xx: retried as ever, not a held queue)", () => html(502, '502 Bad Gateway'), false],
  ["a WAF's 403 with an empty body", () => new Response(null, { status: 403 }), true],
  ["a CDN's 403 in another JSON shape", () => json(403, { error: 'Forbidden', ray: '8c1f' }), true],
];

const posts = (seen: Seen[]) => seen.filter((r) => r.method === 'POST').length;

describe('a refusal about the deployment holds the queue; nothing is dead-lettered', () => {
  it.each(DEPLOYMENT_REFUSALS)('%s: single and batch, none dead-lettered, all delivered once the deployment heals', async (_, refuse, held) => {
    let healed = false;
    const relay = fakeRelay((req) => (req.method === 'POST' && !healed ? refuse() : undefined));
    const qp = client({ fetch: relay.fetch });
    const rejected: DeadLetter[] = [];
    const refused: { status: number; code?: string }[] = [];
    qp.on('award:rejected', (e) => rejected.push(e.deadLetter));
    qp.on('deployment:refused', (e) => refused.push(e));
    // One award alone (the single route), then three in one tick (the batch route, then one by one).
    // (An award dead-lettered ends the wait: the failure then names it.)
    const handles = [qp.award({ eventPoints: 1 })];
    await until(() => posts(relay.seen) >= 2 || rejected.length > 0);
    handles.push(...[2, 3, 4].map((eventPoints) => qp.award({ eventPoints })));
    await until(() => (relay.seen.some((r) => r.path === '/api/batch/points') && posts(relay.seen) >= 8) || rejected.length > 0);
    expect(rejected.map((d) => `${d.eventPoints}: ${d.status} ${d.message}`)).toEqual([]);
    expect(await qp.deadLetters()).toEqual([]);
    expect(qp.getSnapshot()).toMatchObject({ queueSize: 4, deadLetterCount: 0, deploymentRefused: held, online: true });
    if (held) expect(refused[0]).toMatchObject({ status: refuse().status });
    else expect(refused).toEqual([]);
    healed = true;
    const outcomes = await Promise.all(handles.map((h) => h.settled));
    expect(outcomes.map((o) => o.outcome)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(new Set(relay.sentKeys())).toEqual(new Set(handles.map((h) => h.idempotencyKey)));
    await until(() => !qp.getSnapshot().deploymentRefused);
    expect(await qp.deadLetters()).toEqual([]);
  });

  it('held, the retry comes by itself (capped backoff), and `online` tries at once', async () => {
    let healed = false;
    const relay = fakeRelay((req) => (req.method === 'POST' && !healed ? new Response(null, { status: 403 }) : undefined));
    // A backoff longer than the test: only the online event can deliver in time.
    const qp = client({ fetch: relay.fetch, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    const { settled } = qp.award({ eventPoints: 1 });
    await until(() => qp.getSnapshot().deploymentRefused);
    healed = true;
    window.dispatchEvent(new Event('online'));
    expect((await settled).outcome).toBe('sent');
  });

  it("a batch's results carry code: origin holds, player waits for its player, policy and no code dead-letter", async () => {
    // Award 2 is the client's own player's, refused as another player's: the token is someone else's, so the client
    // asks for a fresh one and pauses (auth:required, players.ts) before it reports the held queue of award 1; the
    // single-route tests above assert deploymentRefused itself.
    const relay = fakeRelay((req) => {
      if (req.path !== '/api/batch/points') return undefined;
      const results = batchOf(req).map((a) => {
        const refusal = {
          1: { status: 403, message: ORIGIN_MESSAGE, code: 'origin' },
          2: { status: 403, message: 'player-2 is not the token sub', code: 'player' },
          3: { status: 422, message: 'eventName is not allowed', code: 'policy' },
          4: { status: 400, message: 'eventPoints must be at most 1000000' },
        }[a.eventPoints];
        return refusal ? { idempotencyKey: a.idempotencyKey, outcome: 'rejected', ...refusal } : { idempotencyKey: a.idempotencyKey, outcome: 'ok' };
      });
      return json(200, { success: true, results });
    });
    const qp = client({ fetch: relay.fetch });
    const [origin, player, policy, plain, fine] = [1, 2, 3, 4, 5].map((eventPoints) => qp.award({ eventPoints }));
    expect((await policy!.settled).outcome).toBe('rejected');
    expect((await plain!.settled).outcome).toBe('rejected');
    expect((await fine!.settled).outcome).toBe('sent');
    await until(() => qp.getSnapshot().authRequired);
    expect((await qp.deadLetters()).map((d) => d.eventPoints)).toEqual([3, 4]);
    expect((await qp.pending()).map((a) => a.idempotencyKey)).toEqual([origin!.idempotencyKey, player!.idempotencyKey]);
  });
});

describe('a refusal about the award itself still dead-letters it', () => {
  it('a 400 with the standard body and no code (the service or an older relay)', async () => {
    const relay = fakeRelay((req) => (req.method === 'POST' ? json(400, { success: false, message: 'eventPoints must be a number' }) : undefined));
    const qp = client({ fetch: relay.fetch });
    const outcome = await qp.award({ eventPoints: 1 }).settled;
    expect(outcome).toMatchObject({ outcome: 'rejected', deadLetter: { status: 400, message: 'eventPoints must be a number' } });
    expect(qp.getSnapshot().deploymentRefused).toBe(false);
  });
});

describe('answerHandling: the one rule (protocol/status.ts)', () => {
  it.each([
    [403, { success: false, message: 'x', code: 'origin' }, 'held'],
    [404, { success: false, message: 'x', code: 'route' }, 'held'],
    [403, { success: false, message: 'x', code: 'player' }, 'player'],
    [422, { success: false, message: 'x', code: 'policy' }, 'rejected'],
    [403, { success: false, message: 'x', code: 'a-newer-code' }, 'rejected'],
    [400, { success: false, message: 'eventPoints must be a number' }, 'rejected'],
    [403, { success: false, message: ORIGIN_MESSAGE }, 'held'],
    [404, '<html>404 Not Found</html>', 'held'],
    [403, '', 'held'],
    [403, null, 'held'],
    [502, '<html>502 Bad Gateway</html>', 'retry'],
    [429, null, 'retry'],
    [401, null, 'auth'],
    [200, { success: true }, 'ok'],
  ])('%i %j: %s', (status, body, handling) => expect(answerHandling(status, body)).toBe(handling));
});
