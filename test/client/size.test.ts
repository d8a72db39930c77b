import { expect, it } from 'vitest';
import { SDK_BUDGET_BYTES, sdkBundleSize } from '../../bench/sdk.bench.js';

it('the quest-points entry, minified and gzipped with its dependencies, stays within 14 KB (14,336 B)', async () => {
  const { gzip } = await sdkBundleSize();
  expect(gzip, `SDK bundle is ${gzip} B gzipped`).toBeLessThanOrEqual(SDK_BUDGET_BYTES);
});
