// examples/vite-vanilla (the README quick start) in Chromium: award online, offline, back online.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { ledgerTotal, onlineOfflineOnline, openExample, serveExample } from './harness.js';

let browser: Browser;
let served: Awaited<ReturnType<typeof serveExample>>;
beforeAll(async () => {
  [browser, served] = await Promise.all([launchChromium(), serveExample('vite-vanilla')]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await served?.server.close();
});

describe('examples/vite-vanilla', () => {
  it('awards online, offline and back online; the HUD and the ledger agree', async () => {
    const opened = await openExample(browser, `${served.base}/`);
    await onlineOfflineOnline(opened, {
      award: () => opened.page.click('#coin'),
      points: 5,
      ledger: () => ledgerTotal(served.base, 'dev-player'),
    });
    await opened.context.close();
  }, 60_000);
});
