import { expect, it } from 'vitest';
import { HUD_BUDGET_BYTES, hudBundleSize } from '../../bench/sdk.bench.js';

it('quest-points/hud adds at most 4 KB min+gzip to a bundle that has the SDK', async () => {
  const { sdk, withHud, alone } = await hudBundleSize();
  const added = withHud.gzip - sdk.gzip;
  console.info(
    `quest-points/hud: +${added} B min+gzip beyond the SDK (${sdk.gzip} -> ${withHud.gzip}); alone ${alone.min} B minified, ${alone.gzip} B min+gzip`,
  );
  expect(added, `the HUD adds ${added} B gzipped`).toBeLessThanOrEqual(HUD_BUDGET_BYTES);
  // The element imports only the SDK's types: on its own it carries none of the SDK.
  expect(Object.keys(alone.packages)).toEqual(['quest-points']);
});
