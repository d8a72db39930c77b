// The demo embedded in the docs site, from the built site: `npm run docs`'s two build steps (the demo's static build
// into docs/public/demo, then VitePress) run here as they do there, and the built site is served as a static host
// would (files only: no relay, no emulator, no token route). In Chromium, the docs page's framed game plays: catches
// become awards the in-page stack (demo/src/in-page-stack.ts) records, the HUD and the ledger agree, offline awards
// land once after, and not one request for /api, /__dev or /__emulator reaches the host.
import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
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
  const app = express();
  app.use((req, res, next) => {
    asked.push(req.path);
    res.on('finish', () => res.statusCode >= 400 && failed.push(`${res.statusCode} ${req.path}`));
    next();
  });
  // cleanUrls: /guide/play is guide/play.html, as on any static host that serves the site.
  app.use(express.static(site, { extensions: ['html'] }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

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
    await page.goto(`${base}/guide/play`);
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

    expect(asked.filter((path) => /^\/(api|__dev|__emulator)(\/|$)/.test(path))).toEqual([]);
    expect(asked).toContain('/demo/game.html');
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
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

  it("the stack keeps the tab's ledger from page to page (sessionStorage): the console sees the game's awards", async () => {
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
