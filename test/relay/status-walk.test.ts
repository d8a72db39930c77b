import { describe, expect, it } from 'vitest';
import { classify } from '../../src/client/retry.js';
import { statusVerdict } from '../../src/protocol/index.js';
import { token } from '../helpers/fixtures.js';
import { award, fakeRelay, uuid } from './helpers.js';

// Every status the service could answer an award with, 400-599, through both relay paths. The relay's answer, read
// by the SDK's classify, must mean what the protocol's table says, and the same on the single route and the batch:
// no status is dead-lettered by one path and resent forever by the other. The one exception is the service's 401:
// it refuses the relay's own API key, so the player gets retry (502), never a token refresh or a dead letter.
const STATUSES = Array.from({ length: 200 }, (_, i) => 400 + i);
const expected = (status: number) => (status === 401 ? 'retry' : statusVerdict(status));

describe('one status policy, every status 400-599', () => {
  const policy = { allowUnknownEvents: true, maxPointsPerAward: 1000, rateLimits: {} };
  const relay = () => {
    const sent = new Map<number, number>();
    const fake = fakeRelay({
      policy,
      upstream: { retries: 1, retryDelayMs: 0 },
      // The status to answer rides in the award's points; a resend answers the same.
      reply: (r) => {
        const status = (r.body as { eventPoints: number }).eventPoints;
        sent.set(status, (sent.get(status) ?? 0) + 1);
        return Response.json({ success: false, message: `answered ${status}` }, { status });
      },
    });
    return { ...fake, sent };
  };

  it("the single route answers each so that the SDK reads the table's verdict", async () => {
    const { call, sent } = relay();
    const t = await token({ sub: 'u1' });
    const seen: Record<string, string> = {};
    for (const status of STATUSES) {
      const res = await call('POST', '/group-quests/q/points', {
        token: t,
        headers: { IDEMPOTENCY_KEY: uuid() },
        body: { serviceUserId: 'u1', eventPoints: status },
      });
      seen[status] = classify(res.status);
    }
    expect(seen).toEqual(Object.fromEntries(STATUSES.map((s) => [s, expected(s)])));
    // Resent at once (same key) exactly the statuses the table resends now: 408 and the 5xx.
    const resent = STATUSES.filter((s) => sent.get(s)! > 1);
    expect(resent).toEqual(STATUSES.filter((s) => s === 408 || s >= 500));
  });

  it("the batch answers each with the table's verdict (one player per award, so no award holds back another)", async () => {
    const { call } = fakeRelay({
      policy,
      upstream: { retries: 0 },
      reply: (r) => Response.json({ success: false, message: 'x' }, { status: (r.body as { eventPoints: number }).eventPoints }),
    });
    const admin = await token({ sub: 'ops', role: 'admin' });
    const outcomes: Record<string, string> = {};
    for (let i = 0; i < STATUSES.length; i += 100) {
      const chunk = STATUSES.slice(i, i + 100);
      const res = await call('POST', '/batch/points', { token: admin, body: { awards: chunk.map((s) => award('q', `p${s}`, s)) } });
      expect(res.status).toBe(200);
      chunk.forEach((s, n) => {
        outcomes[s] = res.json.results[n].outcome;
      });
    }
    expect(outcomes).toEqual(Object.fromEntries(STATUSES.map((s) => [s, expected(s)])));
  });

  it('the red-team findings: 402, 405, 410 and 415 are final on both paths', async () => {
    const { call } = relay();
    const t = await token({ sub: 'u1' });
    for (const status of [402, 405, 410, 415]) {
      const single = await call('POST', '/group-quests/q/points', {
        token: t,
        headers: { IDEMPOTENCY_KEY: uuid() },
        body: { serviceUserId: 'u1', eventPoints: status },
      });
      const batch = await call('POST', '/batch/points', { token: t, body: { awards: [award('q', 'u1', status)] } });
      expect([single.status, classify(single.status), batch.json.results[0].outcome, batch.json.results[0].status]).toEqual([
        status,
        'rejected',
        'rejected',
        status,
      ]);
    }
  });
});
