// @vitest-environment happy-dom
// A rule's refusal typed end to end (issue 35, item 2): the relay's machine-readable `code` reaches `award:rejected`
// (the dead letter and the settled outcome) from the single route's error body and from a batch's rejected result; the
// award is final (sent once, never retried) and counts nowhere (the live total drops it). And `onceKey`: checked by
// award(), kept in the queued record, sent to the relay on both routes, never to the service in direct mode.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../src/client/index.js';
import { REFUSAL_CODES, scopeOfCode } from '../../src/protocol/index.js';
import { awardsIn, batchOf, fakeRelay, json, testClients } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

/** Every code about the award itself (the economy's and the others), each with the status the relay answers it with. */
const STATUS: Record<string, number> = { banned: 403, policy: 422, invalid: 400, too_large: 413, key_conflict: 422 };
const AWARD_CODES = Object.keys(REFUSAL_CODES).filter((code) => scopeOfCode(code) === 'award');
const CASES = [...AWARD_CODES, 'a-newer-code'].map((code) => [code, STATUS[code] ?? 422] as const);

const isAward = (path: string) => /\/points$/.test(path);

describe('the code of a refusal about the award reaches award:rejected, final and counted nowhere', () => {
  it('covers every economy code of the table', () => {
    expect(AWARD_CODES).toEqual(expect.arrayContaining(['budget', 'once', 'cooldown', 'campaign', 'banned', 'policy', 'invalid']));
  });

  it.each(CASES)('%s (%i) on the single route', async (code, status) => {
    const message = `refused by the rule (${code})`;
    const relay = fakeRelay((req) => (req.method === 'POST' ? json(status, { success: false, message, code }) : undefined));
    const qp = client({ fetch: relay.fetch });
    const heard: DeadLetter[] = [];
    qp.on('award:rejected', (e) => heard.push(e.deadLetter));
    const { settled, idempotencyKey } = qp.award({ eventPoints: 10, eventName: 'coin' });
    expect(qp.viewPoints().pendingPoints).toBe(10);
    const outcome = await settled;
    expect(outcome).toMatchObject({ outcome: 'rejected', deadLetter: { status, message, code, eventPoints: 10 } });
    expect(heard).toMatchObject([{ idempotencyKey, status, code }]);
    // Dead letters keep the code (as stored: read back from IndexedDB).
    expect(await qp.deadLetters()).toMatchObject([{ idempotencyKey, code }]);
    // Counted nowhere: not pending, not sent; the total is back to the confirmed 0.
    expect(qp.viewPoints()).toMatchObject({ totalPoints: 0, pendingPoints: 0, sentPoints: 0 });
    // Final: a flush later sends nothing again.
    await qp.flush();
    expect(relay.seen.filter((r) => r.method === 'POST' && isAward(r.path))).toHaveLength(1);
  });

  it.each(CASES)("%s (%i) in a batch's rejected result; the batch's other award is sent", async (code, status) => {
    const relay = fakeRelay((req) => {
      if (req.path !== '/api/batch/points') return undefined;
      const results = batchOf(req).map(({ idempotencyKey, eventPoints }) =>
        eventPoints === 10 ? { idempotencyKey, outcome: 'rejected', status, message: `no (${code})`, code } : { idempotencyKey, outcome: 'ok' },
      );
      return json(200, { success: true, results });
    });
    const qp = client({ fetch: relay.fetch });
    const refused = qp.award({ eventPoints: 10 });
    const fine = qp.award({ eventPoints: 1 });
    expect((await refused.settled).outcome).toBe('rejected');
    expect((await fine.settled).outcome).toBe('sent');
    expect(await qp.deadLetters()).toMatchObject([{ idempotencyKey: refused.idempotencyKey, status, code }]);
    expect(qp.viewPoints()).toMatchObject({ totalPoints: 1, pendingPoints: 0, sentPoints: 1 });
    await qp.flush();
    expect(relay.sentKeys().filter((k) => k === refused.idempotencyKey)).toHaveLength(1);
  });

  it("the service's refusal (no code) makes a letter without a code key", async () => {
    const relay = fakeRelay((req) => (req.method === 'POST' ? json(400, { success: false, message: 'eventPoints must be a number' }) : undefined));
    const qp = client({ fetch: relay.fetch });
    await qp.award({ eventPoints: 1 }).settled;
    const [letter] = await qp.deadLetters();
    expect(letter).toBeDefined();
    expect('code' in letter!).toBe(false);
  });
});

describe('onceKey', () => {
  it('is checked by award() with eventName’s rules (at most 128 characters, no control characters)', () => {
    const qp = client({ fetch: fakeRelay().fetch });
    expect(() => qp.award({ eventPoints: 1, onceKey: 'x'.repeat(129) })).toThrow('onceKey must be at most 128 characters');
    expect(() => qp.award({ eventPoints: 1, onceKey: 'a\u0000b' })).toThrow('onceKey must not contain control characters');
    expect(() => qp.award({ eventPoints: 1, onceKey: 7 as never })).toThrow('onceKey must be a string');
    expect(() => qp.award({ eventPoints: 1, onceKey: 'level-3' })).not.toThrow();
  });

  it('is kept in the queued record and sent to the relay on the single and the batch routes', async () => {
    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch });
    const one = qp.award({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-1' });
    expect((await qp.pending())[0]).toMatchObject({ onceKey: 'level-1', eventName: 'first-win' });
    await one.settled;
    const two = [qp.award({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-2' }), qp.award({ eventPoints: 1 })];
    await Promise.all(two.map((h) => h.settled));
    const posts = relay.seen.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.path)).toEqual(['/api/group-quests/quest-1/points', '/api/batch/points']);
    expect(awardsIn(posts[0]!)).toMatchObject([{ onceKey: 'level-1' }]);
    expect(batchOf(posts[1]!).map((a) => (a as { onceKey?: string }).onceKey)).toEqual(['level-2', undefined]);
  });

  it('is not sent to the service in direct mode (the relay consumes it; the service never sees it)', async () => {
    const service = fakeRelay();
    const qp = client({
      fetch: service.fetch,
      relayUrl: undefined,
      direct: { url: 'http://service.test', apiKey: 'k' },
      dangerouslyAllowBrowser: true,
    });
    await qp.award({ eventPoints: 1, onceKey: 'level-1' }).settled;
    const [post] = service.seen.filter((r) => r.method === 'POST');
    expect(post?.body).toEqual({ serviceUserId: 'player-1', eventPoints: 1 });
  });
});
