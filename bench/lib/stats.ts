/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (!samples.length) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/** Rounds for display and JSON: 3 significant digits below 100, integers above. */
export function tidy(value: number): number {
  if (!Number.isFinite(value) || Math.abs(value) >= 100) return Math.round(value);
  return Number(value.toPrecision(3));
}
