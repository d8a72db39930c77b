// The examples/ apps in real Chromium, each served the way its README says (Vite with its own vite.config.ts, which
// imports quest-points/vite by the package's own name: the built package, so `npm run build` first, as CI does), and
// driven through one scenario: award online, offline, back online; the HUD's total, toasts and connection asserted,
// and the emulator's ledger checked at the end.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createServer, type InlineConfig, type ViteDevServer } from 'vite';
import { expect } from 'vitest';
import { until } from '../helpers/until.js';

export const repo = fileURLToPath(new URL('../..', import.meta.url));

/** Starts examples/<name> on a free loopback port with its own vite.config.ts; `close()` stops it. */
export async function serveExample(name: string, extra: InlineConfig = {}): Promise<{ base: string; server: ViteDevServer }> {
  if (!existsSync(`${repo}dist/vite/index.js`)) throw new Error('the examples import the built package: run `npm run build` first');
  const root = `${repo}examples/${name}`;
  const server = await createServer({
    configFile: `${root}/vite.config.ts`,
    root,
    // Each example its own pre-bundle cache: two servers optimising into one directory at once could clash.
    cacheDir: `${repo}node_modules/.vite-example-${name}`,
    server: { port: 0, host: '127.0.0.1', strictPort: false },
    logLevel: 'warn',
    ...extra,
  });
  await server.listen();
  return { base: server.resolvedUrls!.local[0]!.replace(/\/$/, ''), server };
}

export interface ExamplePage {
  page: Page;
  context: BrowserContext;
  errors: string[];
  /** Text of the HUD's parts of one name (`total`, `connection`, ...), in document order. */
  parts(name: string): Promise<string[]>;
  /** The data-state of every toast, newest first as shown. */
  toastStates(): Promise<string[]>;
}

/**
 * Where the page shows the SDK's state: `<quest-points-hud>`'s parts (open shadow root) by default; an example with
 * its own HUD (React) marks its elements with the same part names and its toasts with data-state.
 */
export interface HudSelectors {
  part(name: string): string;
  toast: string;
}
const QUEST_POINTS_HUD: HudSelectors = { part: (name) => `quest-points-hud [part~="${name}"]`, toast: 'quest-points-hud [part~=toast]' };

export async function openExample(browser: Browser, url: string, hud: HudSelectors = QUEST_POINTS_HUD): Promise<ExamplePage> {
  const context = await browser.newContext({ viewport: { width: 960, height: 720 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    // Requests that fail while the test holds the page offline are expected; anything else is an error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  await page.goto(url);
  return {
    page,
    context,
    errors,
    parts: (name) => page.locator(hud.part(name)).allTextContents(),
    toastStates: () => page.locator(hud.toast).evaluateAll((lis) => lis.map((li) => li.getAttribute('data-state') ?? '')),
  };
}

/** The emulator's ledger total for one player, read with the dev server's admin route (loopback). */
export async function ledgerTotal(base: string, serviceUserId: string, questId = 'summer'): Promise<number> {
  const response = await fetch(`${base}/__emulator/state`);
  const { data } = (await response.json()) as { data: { ledger: { questId: string; serviceUserId: string; eventPoints: number }[] } };
  return data.ledger.filter((e) => e.serviceUserId === serviceUserId && e.questId === questId).reduce((sum, e) => sum + e.eventPoints, 0);
}

/**
 * The scenario every example passes: `award()` makes the page award `points` once (a click, a key, a game event).
 * Online: two awards, HUD total and ledger; offline: one more, the HUD says offline and "saved", the ledger does not
 * move; back online: it is delivered, the HUD shows it, the ledger has it once.
 */
export async function onlineOfflineOnline(
  opened: ExamplePage,
  options: { award: () => Promise<void>; points: number; ledger: () => Promise<number>; start?: number; offlineState?: string },
): Promise<void> {
  // offlineState: what a toast (or history row) of an award made offline says; the HUD's "saved — will sync".
  const { award, points, ledger, start = 0, offlineState = 'saved' } = options;
  const total = async () => Number((await opened.parts('total'))[0]?.replace(/[^\d.-]/g, ''));
  await until(async () => (await opened.parts('connection'))[0] === 'online', 'the HUD online');
  await until(async () => (await total()) === start, `the HUD's first total ${start}`);

  await award();
  await award();
  await until(async () => (await total()) === start + 2 * points, 'the HUD total after two awards');
  await until(async () => (await ledger()) === start + 2 * points, 'the ledger after two awards');
  await until(async () => (await opened.toastStates()).every((s) => s === 'sent' || s === 'confirmed'), 'toasts sent or confirmed');

  await opened.context.setOffline(true);
  await until(async () => (await opened.parts('connection'))[0] === 'offline', 'the HUD offline');
  await award();
  await until(async () => (await total()) === start + 3 * points, 'the HUD total counting the offline award');
  await until(async () => (await opened.toastStates()).includes(offlineState), `an entry ${offlineState}`);
  expect(await ledger()).toBe(start + 2 * points);

  await opened.context.setOffline(false);
  await until(async () => (await ledger()) === start + 3 * points, 'the offline award delivered', 20_000);
  await until(async () => (await opened.parts('connection'))[0] === 'online', 'the HUD online again');
  await until(async () => !(await opened.toastStates()).includes(offlineState), `no entry left ${offlineState}`);
  expect(await total()).toBe(start + 3 * points);
  expect(opened.errors).toEqual([]);
}
