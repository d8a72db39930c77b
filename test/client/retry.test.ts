import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAfterMs } from '../../src/client/retry.js';
import { answerHandling } from '../../src/protocol/index.js';
import { sendAwards } from '../../src/client/send-awards.js';
import type { Transport } from '../../src/client/transport.js';
import { tokenExpiry } from '../../src/client/token.js';
import { jwt } from './fake-relay.js';

describe('what one award becomes for an answer (send.ts, the path every award takes)', () => {
  /** One award sent alone (no batch), the relay answering `status`. */
  const outcomeOf = async (status: number) => {
    const body = { success: status < 300, message: `HTTP ${status}` };
    const transport = { batch: false, request: async () => ({ status, body, handling: answerHandling(status, body), rule: answerHandling }) };
    const award = { questId: 'q', serviceUserId: 'u', eventPoints: 1, idempotencyKey: crypto.randomUUID() };
    const [result] = await sendAwards(transport as unknown as Transport, [award]);
    return result!.outcome;
  };
  it.each([200, 201, 204])('%i is an acknowledgement', async (s) => expect(await outcomeOf(s)).toBe('ok'));
  it('401 asks for a fresh token', async () => expect(await outcomeOf(401)).toBe('auth'));
  it.each([400, 403, 404, 413, 422, 405, 410])('%i is a final refusal (dead letter)', async (s) => expect(await outcomeOf(s)).toBe('rejected'));
  it.each([408, 409, 429, 500, 502, 503, 504, 599])('%i is retried with the same key', async (s) => expect(await outcomeOf(s)).toBe('retry'));
});

describe('retryAfterMs', () => {
  it('reads delta-seconds', () => expect(retryAfterMs('3')).toBe(3000));
  it('reads an HTTP date', () => expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000));
  it('a date in the past means now', () => expect(retryAfterMs(new Date(0).toUTCString(), 5000)).toBe(0));
  it.each([null, undefined, '', 'soon'])('%s is no hint', (v) => expect(retryAfterMs(v as string)).toBeUndefined());
});

describe('backoffDelay (full jitter)', () => {
  it('is uniform in [0, base * 2^attempt]', () => {
    expect(backoffDelay(3, 100, 10_000, 0, () => 0.999)).toBe(799);
    expect(backoffDelay(3, 100, 10_000, 0, () => 0)).toBe(0);
  });
  it('is capped at maxMs', () => expect(backoffDelay(40, 100, 5000, 0, () => 0.5)).toBe(2500));
  it('never comes before Retry-After within maxMs', () => expect(backoffDelay(0, 100, 5000, 3000, () => 0.5)).toBe(3000));
  it('a Retry-After past maxMs waits maxMs, then asks again', () => expect(backoffDelay(0, 100, 5000, 7000, () => 0.5)).toBe(5000));
});

describe('tokenExpiry', () => {
  it('reads a JWT exp', () => expect(tokenExpiry(jwt('u', 1234))).toBe(1_234_000));
  it('an opaque token never expires by itself', () => expect(tokenExpiry('opaque')).toBe(Infinity));
});
