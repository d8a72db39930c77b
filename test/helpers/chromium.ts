import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (test tools cannot download browsers here): CHROME_PATH, else the usual places. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('Chromium not found: install Debian\'s "chromium" package or set CHROME_PATH');
  return found;
}

/**
 * playwright-core's own `--disable-features` list (chromiumSwitches.ts, 1.65): it turns ThirdPartyStoragePartitioning
 * off, so a browser launched with its defaults partitions nothing, unlike every shipped Chrome since 115. We drop
 * that argument (ignoreDefaultArgs needs it spelled exactly) and pass the same list without that feature.
 * test/portal/partitioning.test.ts checks that a cross-site frame's IndexedDB really is apart, so a playwright update
 * that changes the list fails there.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
const PARTITIONING = 'ThirdPartyStoragePartitioning';
const disabled = (features: string[]) => `--disable-features=${features.join(',')}`;

/**
 * Chromium as players have it: storage partitioning ON (IndexedDB, Web Locks, BroadcastChannel and service workers of
 * a cross-site frame keyed by the top-level site too). Every browser test launches through this, so a result that
 * depends on partitioning is measured in a browser that exists.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    ignoreDefaultArgs: [disabled(PLAYWRIGHT_DISABLED_FEATURES)],
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      disabled(PLAYWRIGHT_DISABLED_FEATURES.filter((feature) => feature !== PARTITIONING)),
    ],
  });
  // Told when the browser goes away unasked (a crash, a kill): a test that then fails with "Target page, context or
  // browser has been closed" has the cause beside it, not a test's own close().
  let closing = false;
  const close = browser.close.bind(browser);
  browser.close = (options) => {
    closing = true;
    return close(options);
  };
  browser.on('disconnected', () => {
    if (!closing) console.error(`Chromium went away without close() at ${new Date().toISOString()}: it crashed or was killed`);
  });
  return browser;
}
