import { POINTS_DECIMALS } from '../protocol/index.js';

// Points are kept as integer micro-points (BigInt) so a total is exactly the sum of its history:
// 0.1 + 0.2 is 300000 micro-points and reads back as 0.3, whatever the number of events.

const SCALE = 10n ** BigInt(POINTS_DECIMALS);
const SCALE_NUMBER = 10 ** POINTS_DECIMALS;
const NUMBER_PATTERN = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The decimal a JSON number was written as (its shortest round-trip form), rounded half away from
 * zero to POINTS_DECIMALS places, as an integer count of micro-points.
 */
export function toMicro(points: number): bigint {
  if (Number.isSafeInteger(points)) return BigInt(points) * SCALE;
  const match = NUMBER_PATTERN.exec(String(points));
  if (!match) throw new RangeError('points must be a finite number');
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  const shift = Number(exponent) - fraction.length + POINTS_DECIMALS;
  let micro: bigint;
  if (shift >= 0) {
    micro = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    micro = digits / divisor;
    if ((digits % divisor) * 2n >= divisor) micro += 1n;
  }
  return sign === '-' ? -micro : micro;
}

/** The number closest to micro / 10^6 (exact for totals up to about 9 * 10^9 points). */
export function fromMicro(micro: bigint): number {
  const abs = micro < 0n ? -micro : micro;
  if (abs <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(micro) / SCALE_NUMBER;
  const text = `${micro < 0n ? '-' : ''}${abs / SCALE}.${(abs % SCALE).toString().padStart(POINTS_DECIMALS, '0')}`;
  return Number(text);
}
