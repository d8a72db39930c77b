import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 *
 * A browser that goes away without close() says why on stderr, with the end of Chromium's own log (a FATAL, a crashed
 * process; nothing there means it was killed from outside). A test then fails with "Target page, context or browser
 * has been closed", which names no cause. The log's folder goes with the browser.
 *
 * `args` adds switches, e.g. `--ignore-certificate-errors-spki-list` to trust a test's own certificate as a real one
 * (service workers included, which a certificate error forbids).
 */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  const logs = mkdtempSync(join(tmpdir(), 'qp-chromium-'));
  const logFile = join(logs, 'chrome.log');
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
      // Chromium's own log (errors and FATALs of every process), read only if the browser goes away unasked.
      '--enable-logging',
      `--log-file=${logFile}`,
      ...args,
    ],
  });
  let closing = false;
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    closing = true;
    try {
      return await close(options);
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  };
  browser.on('disconnected', () => {
    if (closing) return;
    let tail = '(no log)';
    try {
      tail = readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line && !/dbus/i.test(line))
        .slice(-20)
        .join('\n');
    } catch {}
    rmSync(logs, { recursive: true, force: true });
    console.error(`[chromium] the browser went away without close(); the end of its log:\n${tail}`);
  });
  return browser;
}
