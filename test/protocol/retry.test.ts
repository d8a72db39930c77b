// Retry-After, clamped once (protocol/retry.ts) for every face: the SDK and its worker read it with retryAfterMs and
// schedule with backoffDelay; the relay passes the service's on with retryAfterSeconds (relay/outcome.ts meaningOf).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_DELAY_MS, retryAfterMs, retryAfterSeconds } from '../../src/protocol/retry.js';
import { meaningOf } from '../../src/relay/outcome.js';

const TEN_YEARS_S = 10 * 366 * 24 * 3600;
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

/** A Retry-After from 0 s to 10 years: delta-seconds, or the HTTP date that far from now. */
const retryAfter = fc
  .tuple(fc.integer({ min: 0, max: TEN_YEARS_S }), fc.boolean())
  .map(([seconds, asDate]) => ({ seconds, header: asDate ? new Date(NOW + seconds * 1000).toUTCString() : String(seconds) }));

describe('Retry-After from 0 s to 10 years (numbers and HTTP dates)', () => {
  it('reads as the wait it says, never past 2^31-1 ms', () => {
    fc.assert(
      fc.property(retryAfter, ({ seconds, header }) => {
        expect(retryAfterMs(header, NOW)).toBe(Math.min(seconds * 1000, MAX_DELAY_MS));
      }),
      { numRuns: 2000 },
    );
  });

  it('what the relay passes on is whole seconds that never overflow a client timer either', () => {
    fc.assert(
      fc.property(retryAfter, ({ seconds, header }) => {
        const passed = retryAfterSeconds(header, NOW)!;
        expect(passed * 1000).toBeLessThanOrEqual(MAX_DELAY_MS);
        expect(passed).toBe(Math.min(seconds, Math.floor(MAX_DELAY_MS / 1000)));
        // relay/outcome.ts: the service's 429 as the relay answers it (delta-seconds: a date is read against the clock).
        const meaning = meaningOf({ kind: 'response', status: 429, body: { message: 'slow down' }, retryAfter: String(seconds), attempts: 1 });
        expect(meaning).toMatchObject({ verdict: 'retry', retryAfter: Math.min(seconds, Math.floor(MAX_DELAY_MS / 1000)) });
      }),
      { numRuns: 500 },
    );
  });

  it('schedules no later than maxMs, and no sooner than Retry-After when it is within maxMs', () => {
    fc.assert(
      fc.property(
        retryAfter,
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        ({ header }, attempt, baseMs, maxMs, random) => {
          const afterMs = retryAfterMs(header, NOW)!;
          const delay = backoffDelay(attempt, baseMs, maxMs, afterMs, () => random);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(Math.min(maxMs, MAX_DELAY_MS));
          expect(delay).toBeGreaterThanOrEqual(Math.min(afterMs, maxMs, MAX_DELAY_MS));
          expect(Number.isInteger(delay)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['3456000', MAX_DELAY_MS],
    ['9'.repeat(400), MAX_DELAY_MS],
    ['-5', 0],
    ['0.25', 250],
    ['soon', undefined],
    ['', undefined],
  ])('%s reads as %s', (header, ms) => expect(retryAfterMs(header, NOW)).toBe(ms));
});
