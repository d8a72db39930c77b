import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';

// The demo in real Chromium, served by Vite's dev server with the quest-points plugin (emulator + dev relay).

const repo = fileURLToPath(new URL('../..', import.meta.url));
const shots = `${repo}test-results/demo`;

let server: ViteDevServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  server = await createServer({ configFile: `${repo}vite.config.ts`, server: { port: 0, host: '127.0.0.1', strictPort: false }, logLevel: 'warn' });
  await server.listen();
  base = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Opened {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions, except network failures the test declared expected. */
  errors: string[];
  expectNetworkErrors(pattern: RegExp): void;
  finish(name: string): Promise<void>;
}

async function open(path: string): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const expected: RegExp[] = [];
  // Chromium reports a failed or non-2xx fetch as a console error naming the resource: only the ones a test
  // provokes on purpose (the 404 of the enrollment check, requests while offline) are allowed.
  const isExpected = (message: ConsoleMessage) =>
    message.text().startsWith('Failed to load resource') && expected.some((pattern) => pattern.test(message.location().url));
  page.on('console', (message) => {
    if (message.type() === 'error' && !isExpected(message)) errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  await page.goto(`${base}${path}`);
  return {
    page,
    context,
    errors,
    expectNetworkErrors: (pattern) => void expected.push(pattern),
    async finish(name) {
      await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
      await context.close();
      expect(errors).toEqual([]);
    },
  };
}

const numberIn = async (page: Page, selector: string) => Number(await page.locator(selector).getAttribute('data-value'));
const waitForNumber = (page: Page, selector: string, predicate: string) =>
  page.waitForFunction(([sel, pred]) => {
    const value = Number(document.querySelector(sel!)?.getAttribute('data-value'));
    return new Function('v', `return ${pred}`)(value) as boolean;
  }, [selector, predicate] as const, { timeout: 20_000 });

type LedgerEntry = { questId: string; serviceUserId: string; eventPoints: number; idempotencyKey: string | null };
async function ledgerOf(serviceUserId: string): Promise<LedgerEntry[]> {
  const response = await fetch(`${base}/__emulator/state`);
  const { data } = (await response.json()) as { data: { ledger: LedgerEntry[] } };
  return data.ledger.filter((entry) => entry.serviceUserId === serviceUserId);
}

const uniqueId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

// Generous: the first visit of a page makes Vite transform its modules (Phaser is large), on 2 busy cores.
describe('demo pages in Chromium', { timeout: 90_000 }, () => {
  it('the landing page links every demo page', async () => {
    const opened = await open('/');
    const links = await opened.page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['/game.html', '/phaser.html', '/react.html', '/console.html']);
    await opened.finish('index');
  });

  it('canvas game: catches award points, the HUD total follows; offline awards queue and land exactly once', async () => {
    const player = uniqueId('canvas');
    const opened = await open(`/game.html?player=${player}&autoplay`);
    const { page } = opened;

    // Online: catches become confirmed points in the HUD.
    await waitForNumber(page, '#hud-total', 'v >= 3');
    await expect.poll(async () => (await ledgerOf(player)).length, { timeout: 10_000 }).toBeGreaterThan(0);

    // The demo's offline switch: the SDK's requests fail, awards wait in the outbox.
    await page.getByRole('switch', { name: /Offline switch/ }).check();
    await expect.poll(() => page.locator('#hud-connection').textContent(), { timeout: 10_000 }).toBe('offline');
    await waitForNumber(page, '#hud-queue', 'v >= 3');
    const sentBefore = (await ledgerOf(player)).length;
    await page.getByRole('button', { name: 'Pause' }).click();
    const caught = await numberIn(page, '#hud-caught');
    const queued = await numberIn(page, '#hud-queue');
    expect(sentBefore + queued).toBe(caught);
    // Nothing reached the service while offline.
    await page.waitForTimeout(600);
    expect((await ledgerOf(player)).length).toBe(sentBefore);

    await page.screenshot({ path: `${shots}/game-offline.png` });
    await page.getByRole('switch', { name: /Offline switch/ }).uncheck();
    await waitForNumber(page, '#hud-queue', 'v === 0');
    await expect.poll(() => page.locator('#hud-connection').textContent(), { timeout: 10_000 }).toBe('online');

    const ledger = await ledgerOf(player);
    expect(ledger).toHaveLength(caught);
    expect(new Set(ledger.map((entry) => entry.idempotencyKey)).size).toBe(caught);
    const total = ledger.reduce((sum, entry) => sum + entry.eventPoints, 0);
    await expect.poll(() => numberIn(page, '#hud-total'), { timeout: 10_000 }).toBe(total);
    await expect.poll(() => page.locator('#hud-pending-points').textContent()).toBe('all confirmed');
    expect(await page.locator('#hud-events li').count()).toBeGreaterThan(0);
    await opened.finish('game');
  });

  it('canvas game with the browser offline (context.setOffline): queued awards land exactly once', async () => {
    const player = uniqueId('netoff');
    const opened = await open(`/game.html?player=${player}&autoplay`);
    const { page, context } = opened;
    await waitForNumber(page, '#hud-total', 'v >= 1');
    opened.expectNetworkErrors(/\/api\//);
    await context.setOffline(true);
    const caughtAtCut = await numberIn(page, '#hud-caught');
    await waitForNumber(page, '#hud-caught', `v >= ${caughtAtCut + 3}`);
    await page.getByRole('button', { name: 'Pause' }).click();
    const caught = await numberIn(page, '#hud-caught');
    expect(await numberIn(page, '#hud-queue')).toBeGreaterThan(0);
    await context.setOffline(false);
    await waitForNumber(page, '#hud-queue', 'v === 0');
    const ledger = await ledgerOf(player);
    expect(ledger).toHaveLength(caught);
    expect(new Set(ledger.map((entry) => entry.idempotencyKey)).size).toBe(caught);
    await opened.finish('game-browser-offline');
  });

  it('Phaser scene: boots through the global plugin and shows the points', async () => {
    const player = uniqueId('phaser');
    const opened = await open(`/phaser.html?player=${player}&autoplay`);
    const { page } = opened;
    await page.waitForFunction(() => (window as any).questPointsDemo?.game?.scene?.isActive('catch'), undefined, { timeout: 60_000 });
    await waitForNumber(page, '#scene-points', 'v >= 2');
    await page.getByRole('switch', { name: 'Autoplay' }).uncheck();
    await waitForNumber(page, '#hud-queue', 'v === 0');
    const sceneText = () => page.evaluate(() => (window as any).questPointsDemo.game.scene.getScene('catch').pointsText.text as string);
    const ledger = await ledgerOf(player);
    await expect.poll(async () => (await ledgerOf(player)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(ledger.length);
    await expect.poll(async () => {
      const total = (await ledgerOf(player)).reduce((sum, entry) => sum + entry.eventPoints, 0);
      return (await sceneText()) === `Points: ${total}`;
    }, { timeout: 10_000 }).toBe(true);
    // The plugin is the same object in every scene, mapped as this.questPoints.
    expect(await page.evaluate(() => { const g = (window as any).questPointsDemo.game; return g.scene.getScene('catch').questPoints === g.plugins.get('QuestPoints'); })).toBe(true);
    await opened.finish('phaser');
  });

  it('React HUD: the total and the last 8 awards follow the buttons, offline and back; 0 React warnings', async () => {
    const player = uniqueId('react');
    const opened = await open(`/react.html?player=${player}`);
    const { page } = opened;
    const states = () => page.locator('#react-history li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-state')));
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.getByRole('button', { name: 'Award a coin (+1)' }).click();
    await page.getByRole('button', { name: 'Award a gem (+5)' }).click();
    await waitForNumber(page, '#react-total', 'v === 6');
    await expect.poll(states, { timeout: 10_000 }).toEqual(['confirmed', 'confirmed']);

    await page.getByRole('switch', { name: /Offline switch/ }).check();
    await page.getByRole('button', { name: 'Award a coin (+1)' }).click();
    await waitForNumber(page, '#react-total', 'v === 7');
    await expect.poll(() => page.locator('#react-connection').getAttribute('data-online'), { timeout: 10_000 }).toBe('false');
    expect(await states()).toEqual(['pending', 'confirmed', 'confirmed']);
    expect(await numberIn(page, '#react-queue')).toBe(1);
    await page.screenshot({ path: `${shots}/react-offline.png` });

    await page.getByRole('switch', { name: /Offline switch/ }).uncheck();
    await waitForNumber(page, '#react-queue', 'v === 0');
    await expect.poll(states, { timeout: 10_000 }).toEqual(['confirmed', 'confirmed', 'confirmed']);
    for (let i = 0; i < 7; i++) await page.getByRole('button', { name: 'Award a coin (+1)' }).click();
    await waitForNumber(page, '#react-total', 'v === 14');
    await waitForNumber(page, '#react-queue', 'v === 0');
    await expect.poll(states, { timeout: 10_000 }).toEqual(Array(8).fill('confirmed'));
    const ledger = await ledgerOf(player);
    expect(ledger.map((entry) => entry.eventPoints).sort((a, b) => a - b)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 5]);
    expect(warnings).toEqual([]);
    await opened.finish('react');
  });

  it('designer console: identify, award, history, enrollment (404 included), paging, dead letters, switches', async () => {
    const opened = await open('/console.html');
    const { page } = opened;
    const quest = uniqueId('console-quest');
    await page.getByRole('textbox', { name: 'Quest id' }).fill(quest);

    // Identify by e-mail, then by wallet: each gives an id and fills the other forms.
    await page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => page.locator('#identify-result').getAttribute('data-service-user-id')).toBeTruthy();
    const ada = (await page.locator('#identify-result').getAttribute('data-service-user-id'))!;
    expect(await page.getByLabel('Service user id').first().inputValue()).toBe(ada);
    await page.getByLabel('Identify by').selectOption('wallet');
    await page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => page.locator('#identify-result').getAttribute('data-service-user-id')).not.toBe(ada);
    await page.getByLabel('Identify by').selectOption('email');
    await page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => page.locator('#identify-result').getAttribute('data-service-user-id')).toBe(ada);

    // Award a custom event, then read it back in the history table.
    await page.getByRole('button', { name: 'Award' }).click();
    await expect(page.locator('#award-result')).toBeDefined();
    await expect.poll(() => page.locator('#award-result').textContent(), { timeout: 10_000 }).toMatch(/^Awarded/);
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await expect.poll(() => page.locator('#points-result').getAttribute('data-total')).toBe('25');
    expect(await page.locator('#history-rows tr').count()).toBe(1);
    expect(await page.locator('#history-rows tr td').nth(1).textContent()).toBe('boss_defeated');

    // Enrollment: the award enrolled ada; sandbox mode answers 404 for user_not_enrolled.
    await page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => page.locator('#enrollment-result').getAttribute('data-enrolled')).toBe('true');
    opened.expectNetworkErrors(/\/enrolled-users\/user_not_enrolled$/);
    await page.getByRole('switch', { name: /Sandbox mode/ }).check();
    await expect.poll(() => page.locator('#switches-result').textContent()).toBe('Emulator in sandbox mode');
    await page.locator('#enrollment-user').fill('user_not_enrolled');
    await page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => page.locator('#enrollment-result').getAttribute('data-enrolled')).toBe('false');
    expect(await page.locator('#enrollment-result').textContent()).toMatch(/not enrolled \(404/);
    await page.getByRole('switch', { name: /Sandbox mode/ }).uncheck();
    await expect.poll(() => page.locator('#switches-result').textContent()).toBe('Emulator in stateful mode');

    // Enrolled users: 12 seeded + ada = 13, in pages of 5.
    await page.getByRole('button', { name: 'Seed 12 players' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 1–5');
    expect(await page.locator('#enrolled-rows tr').count()).toBe(5);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 6–10');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 11–13');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 6–10');
    const emails = await page.locator('#enrolled-rows td:nth-child(3)').allTextContents();
    expect(emails.every((email) => email.endsWith('@example.com'))).toBe(true);

    // A refused award becomes a dead letter, which can be discarded.
    opened.expectNetworkErrors(/\/api\/(batch\/points|group-quests\/[^/]+\/points)$/);
    await page.locator('#award-points').fill('5000');
    await page.getByRole('button', { name: 'Award' }).click();
    await expect.poll(() => page.locator('#award-result').textContent(), { timeout: 10_000 }).toMatch(/^Refused 4\d\d: /);
    await expect.poll(() => page.locator('#queue-summary').getAttribute('data-dead')).toBe('1');
    await page.getByRole('button', { name: /^Discard the award of 5000/ }).click();
    await expect.poll(() => page.locator('#queue-summary').getAttribute('data-dead')).toBe('0');

    // Offline switch: the award waits in the queue, then lands once.
    await page.locator('#award-points').fill('3');
    await page.getByRole('switch', { name: /Offline \(/ }).check();
    await page.getByRole('button', { name: 'Award' }).click();
    await expect.poll(() => page.locator('#queue-summary').getAttribute('data-pending')).toBe('1');
    await page.getByRole('switch', { name: /Offline \(/ }).uncheck();
    await expect.poll(() => page.locator('#award-result').textContent(), { timeout: 10_000 }).toMatch(/^Awarded/);
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await expect.poll(() => page.locator('#points-result').getAttribute('data-total')).toBe('28');

    // Fault switches reach the emulator.
    await page.getByRole('switch', { name: /30% of requests/ }).check();
    await expect.poll(async () => (await (await fetch(`${base}/__emulator/faults`)).json()).data.errorRate).toBe(0.3);
    await page.getByRole('switch', { name: /30% of requests/ }).uncheck();
    await expect.poll(async () => (await (await fetch(`${base}/__emulator/faults`)).json()).data.errorRate ?? 0).toBe(0);

    await opened.finish('console');
  });
});
