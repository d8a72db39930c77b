// What an upstream result means, decided in one place (src/relay/outcome.ts), read by both award routes.
import { describe, expect, it } from 'vitest';
import { batchResultOf, labelOf, meaningOf, outageOf } from '../../src/relay/outcome.js';
import { token } from '../helpers/fixtures.js';
import { fakeRelay } from './helpers.js';

const response = (status: number, retryAfter?: string) =>
  ({ kind: 'response', status, body: { success: false, message: 'm' }, attempts: 1, ...(retryAfter ? { retryAfter } : {}) }) as const;

describe('meaningOf', () => {
  it('ok, final, retry with reason and Retry-After, auth', () => {
    expect(meaningOf({ kind: 'response', status: 200, body: { success: true }, attempts: 1 })).toEqual({ verdict: 'ok', status: 200 });
    expect(meaningOf(response(404))).toEqual({ verdict: 'final', status: 404, message: 'm' });
    expect(meaningOf(response(429, '3'))).toMatchObject({ verdict: 'retry', reason: 'rate_limited', status: 429, retryAfter: 3 });
    expect(meaningOf(response(401))).toMatchObject({ verdict: 'auth' });
    expect(meaningOf({ kind: 'failure', reason: 'network', message: 'unreachable (ECONNREFUSED)', attempts: 3 })).toMatchObject({
      verdict: 'retry',
      reason: 'network',
    });
  });

  it('reads Retry-After as an HTTP date too (the protocol parser the SDK uses), rounded up to whole seconds', () => {
    const at = new Date(Date.now() + 4_500).toUTCString();
    const retryAfter = (meaningOf(response(503, at)) as { retryAfter?: number }).retryAfter;
    expect(retryAfter).toBeGreaterThanOrEqual(3);
    expect(retryAfter).toBeLessThanOrEqual(5);
  });

  it('one answer for the single route, the batch and the metrics', () => {
    const meaning = meaningOf(response(401, '7'));
    expect(outageOf(response(401, '7'), meaning)).toEqual({
      status: 502,
      message: "Quest Points Service refused the relay's API key (check QP_API_KEY)",
      retryAfter: 7,
    });
    expect(batchResultOf('k', meaning)).toEqual({ idempotencyKey: 'k', outcome: 'retry', reason: 'upstream_auth', retryAfter: 7 });
    expect(labelOf(meaning, false)).toBe('retry');
    expect(labelOf({ verdict: 'retry', reason: 'rate_limited', status: 429, message: '' }, true)).toBe('rate_limited');
    expect(labelOf({ verdict: 'final', status: 403, message: '' }, true)).toBe('refused');
  });
});

it('the single route passes on an HTTP-date Retry-After of the service as seconds (before: dropped)', async () => {
  const at = new Date(Date.now() + 10_000).toUTCString();
  const relay = fakeRelay({ reply: () => Response.json({ success: false, message: 'slow down' }, { status: 429, headers: { 'retry-after': at } }) });
  const res = await relay.call('POST', '/group-quests/q1/points', {
    token: await token({ sub: 'u1' }),
    body: { serviceUserId: 'u1', eventPoints: 1 },
  });
  expect(res.status).toBe(429);
  const seconds = Number(res.headers.get('retry-after'));
  expect(seconds).toBeGreaterThanOrEqual(8);
  expect(seconds).toBeLessThanOrEqual(10);
});
