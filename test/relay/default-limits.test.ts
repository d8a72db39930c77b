// The default policy's per-player limit against the SDK's own batch (issue 34, found by reading): a returning player's
// first batch holds up to BATCH_MAX_AWARDS awards, and its resend after a lost acknowledgement as many again.
import { describe, expect, it } from 'vitest';
import { BATCH_MAX_AWARDS } from '../../src/protocol/index.js';
import { createMemoryRecordStore, DEFAULT_POLICY } from '../../src/relay/index.js';
import { token } from '../helpers/fixtures.js';
import { fakeRelay, uuid } from './helpers.js';

describe('DEFAULT_POLICY rateLimits.perPlayer', () => {
  it("lets a returning player's full batch through, and its resend after a lost acknowledgement", async () => {
    const { call, seen } = fakeRelay({ policy: DEFAULT_POLICY, idempotency: { store: createMemoryRecordStore() } });
    const jwt = await token({ sub: 'back' });
    const awards = Array.from({ length: BATCH_MAX_AWARDS }, () => ({ questId: 'q', serviceUserId: 'back', eventPoints: 1, idempotencyKey: uuid() }));
    const outcomes = async () => {
      const answer = await call('POST', '/batch/points', { token: jwt, body: { awards } });
      expect(answer.status).toBe(200);
      return answer.json.results.map((r: { outcome: string; reason?: string }) => r.reason ?? r.outcome);
    };
    expect(await outcomes()).toEqual(awards.map(() => 'ok'));
    // The same batch again at once (its answer was lost on the way): answered from the record, none refused.
    expect(await outcomes()).toEqual(awards.map(() => 'ok'));
    expect(seen.filter((r) => r.method === 'POST')).toHaveLength(BATCH_MAX_AWARDS);
  });

  it('still bounds a player: the next batch within the minute is limited', async () => {
    const { call } = fakeRelay({ policy: DEFAULT_POLICY });
    const jwt = await token({ sub: 'greedy' });
    const batch = () =>
      call('POST', '/batch/points', {
        token: jwt,
        body: {
          awards: Array.from({ length: BATCH_MAX_AWARDS }, () => ({ questId: 'q', serviceUserId: 'greedy', eventPoints: 1, idempotencyKey: uuid() })),
        },
      }).then((a) => a.json.results.filter((r: { reason?: string }) => r.reason === 'rate_limited').length);
    expect(await batch()).toBe(0);
    expect(await batch()).toBe(0);
    expect(await batch()).toBeGreaterThan(0);
  });
});
