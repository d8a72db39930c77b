#!/usr/bin/env node
// `npm run screenshots`: every demo page in Debian's Chromium (playwright-core), served by the demo's own Vite
// server (vite.config.ts: emulator + dev relay on one port), saved to docs/screenshots/<page>.png for the docs.
// Each page is given a few awards first where it has a game, so the HUD shows totals and toasts, not an empty state.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';

const repo = fileURLToPath(new URL('..', import.meta.url));
const out = `${repo}docs/screenshots`;
const executablePath = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(Boolean);

/** The pages, and what to do on each before the picture (a player's few moves). */
const PAGES = [
  { name: 'home', path: '/' },
  { name: 'canvas-game', path: '/game.html?player=screenshots&autoplay', play: caughtSome },
  {
    name: 'phaser-game',
    path: '/phaser.html?player=screenshots&autoplay',
    play: (page) => page.waitForFunction(() => /Caught\s*(\d{2,}|[5-9])/.test(document.body.textContent ?? ''), undefined, { timeout: 30_000 }),
  },
  { name: 'react-hud', path: '/react.html?player=screenshots', play: (page) => page.getByRole('button').first().click() },
  { name: 'designer-console', path: '/console.html' },
  // The designer shows a toast in every state on purpose: wait only for its confirmed one (sent first, for 0.7 s).
  {
    name: 'hud-designer',
    path: '/hud.html',
    still: true,
    play: (page) =>
      page.waitForFunction(
        () => document.querySelector('#preview-hud')?.shadowRoot?.querySelector('[part~=toast][data-state=confirmed]'),
        undefined,
        {
          timeout: 10_000,
        },
      ),
  },
];

/** Autoplay catches coins: wait until the HUD's total has moved a few times. */
async function caughtSome(page) {
  await page.waitForFunction(
    () => Number(document.querySelector('quest-points-hud')?.shadowRoot?.querySelector('[part~=total]')?.textContent?.replace(/\D/g, '') || 0) >= 5,
    undefined,
    { timeout: 30_000 },
  );
}

mkdirSync(out, { recursive: true });
const server = await createServer({ configFile: `${repo}vite.config.ts`, server: { port: 0, host: '127.0.0.1' }, logLevel: 'warn' });
await server.listen();
const base = server.resolvedUrls.local[0].replace(/\/$/, '');
const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  for (const { name, path, play, still } of PAGES) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.goto(base + path, { waitUntil: 'networkidle' });
    if (play) await play(page).catch((error) => console.warn(`${name}: could not play (${error.message})`));
    await page.waitForLoadState('networkidle');
    // The HUD's toasts settled: none still sending or saved (a page without a HUD passes at once).
    if (!still)
      await page
        .waitForFunction(
          () =>
            ![...document.querySelectorAll('quest-points-hud')].some((hud) =>
              hud.shadowRoot?.querySelector('[data-state=sending],[data-state=saved]'),
            ),
          undefined,
          { timeout: 10_000 },
        )
        .catch(() => console.warn(`${name}: toasts still on their way`));
    await page.screenshot({ path: `${out}/${name}.png`, fullPage: true });
    console.log(`docs/screenshots/${name}.png`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
