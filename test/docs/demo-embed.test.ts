// The demo embedded in the docs site, from the built site: `npm run docs`'s two build steps (the demo's static build
// into docs/public/demo, then VitePress) run here as they do there, and the built site is served as a static host
// would (files only: no relay, no emulator, no token route). In Chromium, the docs page's framed game plays: catches
// become awards the in-page stack (demo/src/in-page-stack.ts) records, the HUD and the ledger agree, offline awards
// land once after, and not one request for /api, /__dev or /__emulator reaches the host.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { until } from '../helpers/until.js';
import { root } from './snippet-sources.js';

const run = promisify(execFile);
const site = `${root}docs/.vitepress/dist`;
let server: Server;
let base = '';
let browser: Browser;
/** Every path the static host was asked for, and each answer that was not 2xx/304. */
const asked: string[] = [];
const failed: string[] = [];

beforeAll(async () => {
  await run('npm', ['run', 'demo:static'], { cwd: root });
  await run('npx', ['vitepress', 'build', 'docs'], { cwd: root });
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://host').pathname);
    asked.push(path);
    const file = plainFile(path);
    if (!file) {
      failed.push(`404 ${path}`);
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * The file a plain static server sends for a path, as node's http with nothing else would (or `python3 -m
 * http.server`): the file of that name, a folder's index.html, else nothing. No `.html` added, no fallback page.
 */
function plainFile(path: string): string | undefined {
  const file = join(site, path);
  if (!file.startsWith(site)) return undefined;
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat?.isFile()) return file;
  if (stat?.isDirectory() && statSync(join(file, 'index.html'), { throwIfNoEntry: false })?.isFile()) return join(file, 'index.html');
  return undefined;
}

/** Every built page of the site (not the TypeDoc API, not the demo), as the path a visitor loads. */
function sitePages(dir = site): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['api', 'demo', 'assets'].includes(entry.name) && dir === site ? [] : sitePages(path);
    return entry.name.endsWith('.html') && entry.name !== '404.html' ? [path.slice(site.length)] : [];
  });
}

/** A number the demo page keeps in data-value. */
const number = async (frame: Frame | Page, selector: string) => Number(await frame.locator(selector).getAttribute('data-value'));
/** The in-page stack's ledger, read as the designer console reads it. */
const ledger = (frame: Frame | Page) =>
  frame.evaluate(async () => {
    const state = (await (await fetch('/__emulator/state')).json()) as { data: { ledger: { serviceUserId: string; eventPoints: number }[] } };
    return state.data.ledger;
  });

describe('the demo in the docs site (static build, the stack in the page)', { timeout: 120_000 }, () => {
  it('the Play page frames the game; it awards online, offline and back, the HUD and the ledger agree, nothing asks the host for the stack', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1200 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${base}/guide/play.html`);
    const element = await page.waitForSelector('iframe#demo-game');
    const frame = (await element.contentFrame())!;
    await frame.waitForSelector('#hud-total[data-value]');

    // Autoplay catches coins: awards confirmed by the in-page service, the HUD's total is the ledger's.
    await until(async () => (await number(frame, '#hud-total')) >= 3, 'three points caught');
    await until(async () => (await number(frame, '#hud-queue')) === 0 && (await frame.locator('#hud-connection').textContent()) === 'online', 'sent');
    const player = await frame.locator('#player').textContent();
    expect(player).toBeTruthy();
    const mine = async () => (await ledger(frame)).filter((e) => e.serviceUserId === player);
    expect((await mine()).length).toBeGreaterThan(0);

    // Offline (the demo's switch): awards wait, the ledger does not move; back online they land, each once.
    await frame.getByRole('switch', { name: /Offline switch/ }).check();
    await until(async () => (await number(frame, '#hud-queue')) >= 2, 'two awards waiting offline');
    const whileOffline = (await mine()).length;
    await frame.getByRole('button', { name: 'Pause' }).click();
    const caught = await number(frame, '#hud-caught');
    expect((await mine()).length).toBe(whileOffline);
    await frame.getByRole('switch', { name: /Offline switch/ }).uncheck();
    await until(async () => (await number(frame, '#hud-queue')) === 0, 'the queue drained');
    await until(async () => (await mine()).length === caught, `the ledger has each of the ${caught} catches once`);
    const points = (await mine()).reduce((sum, e) => sum + e.eventPoints, 0);
    await until(async () => (await number(frame, '#hud-total')) === points, `the HUD total ${points}`);

    // The links under the frame open new tabs: the same player with the same points there (the stack's state is in
    // localStorage, as the player's id is).
    const [full] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: 'Open it full size' }).click()]);
    await full.waitForSelector('#hud-total[data-value]');
    expect(await full.locator('#player').textContent()).toBe(player);
    await until(async () => (await number(full, '#hud-total')) === points, `the new tab's HUD total ${points}`);
    await until(async () => (await ledger(full)).filter((e) => e.serviceUserId === player).length === caught, `the new tab's ledger: ${caught}`);
    // A page opened afresh (a bookmark, an address typed in a new tab: no copy of the opener's session) has them too.
    const fresh = await context.newPage();
    await fresh.goto(`${base}/demo/console.html`);
    expect((await ledger(fresh)).filter((e) => e.serviceUserId === player)).toHaveLength(caught);

    expect(asked.filter((path) => /^\/(api|__dev|__emulator)(\/|$)/.test(path))).toEqual([]);
    expect(asked).toContain('/demo/game.html');
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('every page of the site and every link between them loads from a plain static server: a deep link, a reload', async () => {
    const pages = sitePages();
    expect(pages).toEqual(expect.arrayContaining(['/index.html', '/unity.html', '/guide/play.html']));
    const links = new Set<string>();
    for (const path of pages) {
      const html = readFileSync(join(site, path), 'utf8');
      for (const [, href] of html.matchAll(/href="(\/[^"#?]*)/g)) if (!href!.startsWith('/api/')) links.add(href!);
    }
    const missing = [...links].filter((href) => !plainFile(href));
    expect(missing).toEqual([]);
    // In Chromium: the Unity page loaded by its own address, then reloaded, shows itself (not a 404 page).
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${base}/unity.html`);
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.locator('main h1').first().textContent()).toContain('Unity');
    await page.reload();
    await expect.poll(() => page.locator('main h1').first().textContent()).toContain('Unity');
    // A link of the sidebar, followed: the address a visitor would bookmark, loaded afresh.
    await page.locator('nav a[href*="godot"]').first().click();
    await page.waitForURL(/godot/);
    const bookmarked = await context.newPage();
    expect((await bookmarked.goto(page.url()))?.status()).toBe(200);
    await context.close();
  });

  it('every demo page of the site loads with no error and no failed request (relative links, sprites, the stack)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    await page.goto(`${base}/demo/`);
    const links = await page.locator('main a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(links.map((href) => new URL(href).pathname)).toEqual([
      '/demo/game.html',
      '/demo/phaser.html',
      '/demo/react.html',
      '/demo/console.html',
      '/demo/hud.html',
    ]);
    for (const href of links) {
      await page.goto(href);
      await page.waitForLoadState('networkidle');
    }
    // The Phaser page drew its scene from the sprites the build copied.
    await page.goto(`${base}/demo/phaser.html`);
    await until(
      () => page.evaluate(() => document.querySelector('#scene-points')?.getAttribute('data-value') === '0'),
      'the Phaser scene read its points',
    );
    expect(asked).toEqual(expect.arrayContaining(['/demo/sprites/coin.svg', '/demo/sprites/sky.svg']));
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the stack keeps the browser's ledger from page to page (localStorage): the console sees the game's awards", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/demo/game.html?autoplay&player=docs-visitor`);
    await until(async () => (await number(page, '#hud-total')) >= 2 && (await number(page, '#hud-queue')) === 0, 'two points sent');
    const before = (await ledger(page)).filter((e) => e.serviceUserId === 'docs-visitor').length;
    expect(before).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Designer console' }).click();
    await page.waitForURL(/\/demo\/console\.html$/);
    expect((await ledger(page)).filter((e) => e.serviceUserId === 'docs-visitor').length).toBeGreaterThanOrEqual(before);
    expect(failed).toEqual([]);
    await context.close();
  });
});
