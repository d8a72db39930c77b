import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromMicro, toMicro } from '../../src/emulator/micro-points.js';

describe('micro-points', () => {
  it.each([
    [0, 0n],
    [1, 1_000_000n],
    [-2.5, -2_500_000n],
    [0.1, 100_000n],
    [0.2, 200_000n],
    [1e-7, 0n],
    [5e-7, 1n],
    [-5e-7, -1n],
    [0.0000015, 2n],
    [123456.7890125, 123456789013n],
    [1e21, 10n ** 27n],
    [2.5e-3, 2_500n],
  ])('toMicro(%d) = %s', (points, micro) => {
    expect(toMicro(points)).toBe(micro);
  });
  it('0.1 + 0.2 reads back as 0.3', () => {
    expect(fromMicro(toMicro(0.1) + toMicro(0.2))).toBe(0.3);
  });
  it('large values survive: MAX_VALUE round-trips', () => {
    expect(fromMicro(toMicro(Number.MAX_VALUE))).toBe(Number.MAX_VALUE);
    expect(fromMicro(toMicro(Number.MAX_VALUE) * 2n)).toBe(Infinity);
  });
  it('any decimal with up to 6 places round-trips exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 6 }), (n, places) => {
        const points = n / 10 ** places;
        expect(toMicro(points)).toBe(BigInt(n) * 10n ** BigInt(6 - places));
        expect(fromMicro(toMicro(points))).toBe(points);
      }),
    );
  });
  it('any finite double is rounded to the nearest micro-point', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }), (points) => {
        expect(Math.abs(fromMicro(toMicro(points)) - points)).toBeLessThanOrEqual(5e-7 + Math.abs(points) * 1e-15);
      }),
    );
  });
});
