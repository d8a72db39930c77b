import { POINTS_DECIMALS } from './limits.js';

const SCALE = 10 ** POINTS_DECIMALS;

/** A points amount rounded (half away from zero) to the service's POINTS_DECIMALS places: how a total reads back. */
export function roundPoints(points: number): number {
  return (Math.sign(points) * Math.round(Math.abs(points) * SCALE)) / SCALE || 0;
}
