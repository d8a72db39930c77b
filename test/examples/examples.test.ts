// Every example under examples/ (but the operator's server, operator-server.test.ts) in Chromium, served by Vite with
// the example's own vite.config.ts: award online, offline, back online; the HUD's total, toasts and connection and the
// emulator's ledger asserted (harness.ts). One browser for the file; one Vite server per example, in turn.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { type HudSelectors, ledgerTotal, onlineOfflineOnline, openExample, serveExample } from './harness.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

function example(name: string, run: (base: string) => Promise<void>) {
  describe(`examples/${name}`, () => {
    let served: Awaited<ReturnType<typeof serveExample>> | undefined;
    beforeAll(async () => {
      served = await serveExample(name);
    }, 90_000);
    afterAll(async () => {
      await served?.server.close();
    });
    it('awards online, offline and back online; the HUD and the ledger agree', () => run(served!.base), 90_000);
  });
}

const ledger = (base: string) => () => ledgerTotal(base, 'dev-player');

example('vite-vanilla', async (base) => {
  const opened = await openExample(browser, `${base}/`);
  await onlineOfflineOnline(opened, { award: () => opened.page.click('#coin'), points: 5, ledger: ledger(base) });
  await opened.context.close();
});

example('hud-only', async (base) => {
  const opened = await openExample(browser, `${base}/`);
  await onlineOfflineOnline(opened, { award: () => opened.page.click('#quest'), points: 25, ledger: ledger(base) });
  await opened.context.close();
});

example('phaser', async (base) => {
  const opened = await openExample(browser, `${base}/`);
  await opened.page.waitForSelector('#game canvas');
  // The coin bobs between y 165 and 180 around x 320 (radius 36): its middle is always under (320, 172).
  const award = async () => {
    const box = (await opened.page.locator('#game canvas').boundingBox())!;
    await opened.page.mouse.click(box.x + 320, box.y + 172);
  };
  await onlineOfflineOnline(opened, { award, points: 10, ledger: ledger(base) });
  await opened.context.close();
});

const REACT_HUD: HudSelectors = { part: (name) => `[data-part="${name}"]`, toast: 'aside li' };
example('react', async (base) => {
  const opened = await openExample(browser, `${base}/`, REACT_HUD);
  // The React HUD lists the view's history: an award made offline is `pending` until the relay acknowledges it.
  const award = () => opened.page.getByRole('button', { name: 'Collect a coin' }).click();
  await onlineOfflineOnline(opened, { award, points: 1, ledger: ledger(base), offlineState: 'pending' });
  await opened.context.close();
});

example('pixi', async (base) => {
  const opened = await openExample(browser, `${base}/`);
  await opened.page.waitForSelector('#game canvas');
  // The star turns around (320, 180), its middle always under the pointer there.
  const award = async () => {
    const box = (await opened.page.locator('#game canvas').boundingBox())!;
    await opened.page.mouse.click(box.x + 320, box.y + 180);
  };
  await onlineOfflineOnline(opened, { award, points: 10, ledger: ledger(base) });
  await opened.context.close();
});
