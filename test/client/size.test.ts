import { expect, it } from 'vitest';
import { SDK_BUDGET_BYTES, SDK_TARGET_BYTES, sdkBundleSize } from '../../bench/sdk.bench.js';

it('the quest-points entry, minified and gzipped with its dependencies, stays within its budget and the 14 KB target (docs/sdk.md)', async () => {
  const { gzip } = await sdkBundleSize();
  expect(gzip, `SDK bundle is ${gzip} B gzipped up front`).toBeLessThanOrEqual(SDK_BUDGET_BYTES);
  expect(gzip).toBeLessThanOrEqual(SDK_TARGET_BYTES);
});

it('the account calls (identify, enrollment, enrolled users) and their rules stay out of the up-front bundle, loaded on first use', async () => {
  const { lazyGzip, packages } = await sdkBundleSize();
  // The chunk holds the calls, parseIdentify and the e-mail and wallet rules (valibot's EMAIL_REGEX among them).
  expect(lazyGzip).toBeGreaterThan(500);
  expect(packages.valibot).toBeUndefined();
});

it('ofetch (with ufo and destr) and the code loaded only where needed (the IndexedDB lease, the rescue merge) stay out of the up-front bundle', async () => {
  const { packages } = await sdkBundleSize();
  expect(packages.ofetch).toBeUndefined();
  expect(packages.ufo).toBeUndefined();
  expect(packages.destr).toBeUndefined();
  // Still in the package: the lazy part holds them.
  const whole = await sdkBundleSize(false);
  expect(whole.packages.ofetch).toBeGreaterThan(1000);
});
