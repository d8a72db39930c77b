import { expect, it } from 'vitest';
import { SW_BUDGET_BYTES, swBundleSize } from '../../bench/sdk.bench.js';

it('quest-points/sw.js, one file as built, minified and gzipped with what it reuses, stays within 12 KB', async () => {
  const { min, gzip } = await swBundleSize();
  console.info(`quest-points/sw.js: ${min} B minified, ${gzip} B min+gzip`);
  expect(gzip, `sw.js is ${gzip} B gzipped`).toBeLessThanOrEqual(SW_BUDGET_BYTES);
});
