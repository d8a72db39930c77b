import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ledgerOf, numberIn, uniqueId, setupDemoServer, waitForNumber } from './harness.js';

// Accessibility of the demo in real Chromium: axe-core over every page (WCAG 2.x A and AA rules plus best
// practices), in light and dark colour schemes, and the canvas game played with the keyboard alone.

const demo = setupDemoServer('a11y');

type Violation = { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] };

async function axe(page: Page): Promise<Violation[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze();
  return results.violations as Violation[];
}

const summary = (violations: Violation[]) =>
  violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);

const PAGES = [
  ['/', 'index'],
  ['/game.html?player=a11y-game', 'game'],
  ['/phaser.html?player=a11y-phaser', 'phaser'],
  ['/react.html?player=a11y-react', 'react'],
  ['/console.html', 'console'],
  ['/hud.html', 'hud designer'],
] as const;

/** Axe in both colour schemes; logs every violation, fails on serious and critical ones. */
async function expectAccessible(page: Page, label: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const violations = await axe(page);
    console.log(`[axe] ${label}, ${scheme}: ${violations.length} violation(s)${violations.length ? `\n  ${summary(violations).join('\n  ')}` : ''}`);
    expect(summary(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')), `${label}, ${scheme}`).toEqual([]);
  }
}

describe('demo accessibility (axe-core in Chromium)', { timeout: 90_000 }, () => {
  it.each(PAGES)('%s has no serious or critical violation, light or dark', async (path, name) => {
    const opened = await demo.open(path);
    // Scripted pages fill the HUD and tables first; axe checks what a player sees.
    await opened.page.waitForLoadState('networkidle');
    await expectAccessible(opened.page, name);
    await opened.finish(`a11y-${name}`);
  });
});

describe('demo accessibility in use', { timeout: 90_000 }, () => {
  it('the states a player meets (offline, awards pending) and a refused award in the console: still no serious or critical violation', async () => {
    const game = await demo.open(`/game.html?player=${uniqueId('a11y-offline')}&autoplay`);
    await game.page.getByRole('switch', { name: /Offline switch/ }).check();
    await waitForNumber(game.page, '#hud-queue', 'v >= 1');
    await expect.poll(() => game.page.locator('#hud-connection').textContent(), { timeout: 10_000 }).toBe('offline');
    await expectAccessible(game.page, 'game offline with pending awards');
    await game.finish('a11y-game-offline');

    const designer = await demo.open('/console.html');
    designer.expectNetworkErrors(/\/api\/(batch\/points|group-quests\/[^/]+\/points)$/);
    await designer.page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => designer.page.locator('#identify-result').getAttribute('data-service-user-id')).toBeTruthy();
    await designer.page.locator('#award-points').fill('5000');
    await designer.page.getByRole('button', { name: 'Award' }).click();
    await expect.poll(() => designer.page.locator('#queue-summary').getAttribute('data-dead'), { timeout: 10_000 }).toBe('1');
    await expectAccessible(designer.page, 'console with a dead letter');
    await designer.finish('a11y-console-dead-letter');
  });

  it('the canvas game with the keyboard alone: Tab to the game, A/D and the arrows move the basket, a catch lands, the total is announced politely', async () => {
    const player = uniqueId('a11y-keys');
    const opened = await demo.open(`/game.html?player=${player}`);
    const { page } = opened;
    type GameState = { basketX: number; basketY: number; coins: { x: number; y: number }[] };
    const state = () =>
      page.evaluate(() => (window as unknown as { questPointsDemo: { game: { state(): GameState } } }).questPointsDemo.game.state());

    // Reach the canvas by Tab from the top of the page; it has a name and its instructions.
    await expect.poll(() => page.evaluate(() => 'questPointsDemo' in window)).toBe(true);
    let tabs = 0;
    while (!(await page.evaluate(() => document.activeElement?.id === 'stage'))) {
      expect(++tabs, 'Tab never reached the game canvas').toBeLessThan(20);
      await page.keyboard.press('Tab');
    }
    const stage = page.locator('#stage');
    expect(await stage.getAttribute('aria-label')).toBe('Coin game');
    expect(await page.locator(`#${await stage.getAttribute('aria-describedby')}`).textContent()).toMatch(/← → or A D/);

    // D (and Shift+A, as Caps Lock would send) move the basket; releasing stops it.
    const start = (await state()).basketX;
    await page.keyboard.down('d');
    await expect.poll(async () => (await state()).basketX, { timeout: 5_000 }).toBeGreaterThan(start + 40);
    await page.keyboard.up('d');
    const right = (await state()).basketX;
    await page.keyboard.down('Shift');
    await page.keyboard.down('A');
    await expect.poll(async () => (await state()).basketX, { timeout: 5_000 }).toBeLessThan(right - 40);
    await page.keyboard.up('A');
    await page.keyboard.up('Shift');

    // The in-game HUD announces in a polite live region (role=status), so a screen reader hears the total change
    // without losing its place; the side panel's copy of the total stays quiet (one voice, not two).
    const live = page.locator('#stage-box quest-points-hud [role=status]');
    expect(await live.count()).toBe(1);
    expect(await page.locator('[aria-live="assertive"], [role=alert]').count()).toBe(0);
    expect(await page.locator('#hud-total').evaluate((el) => el.closest('[aria-live]'))).toBeNull();

    // Steer under the lowest coin with ← → until a catch lands: counted, awarded, and shown in the total.
    let held: 'ArrowLeft' | 'ArrowRight' | null = null;
    const hold = async (key: typeof held) => {
      if (key === held) return;
      if (held) await page.keyboard.up(held);
      if (key) await page.keyboard.down(key);
      held = key;
    };
    const deadline = Date.now() + 30_000;
    while ((await numberIn(page, '#hud-caught')) === 0) {
      expect(Date.now(), 'no coin caught with the keyboard in 30 s').toBeLessThan(deadline);
      const { basketX, basketY, coins } = await state();
      const target = coins.filter((coin) => coin.y < basketY).sort((a, b) => b.y - a.y)[0];
      const offset = target ? target.x - basketX : 0;
      await hold(Math.abs(offset) < 12 ? null : offset > 0 ? 'ArrowRight' : 'ArrowLeft');
    }
    await hold(null);
    await waitForNumber(page, '#hud-total', 'v >= 1');
    await expect.poll(() => live.textContent(), { timeout: 10_000 }).toMatch(/^Points: \d+/);
    // The game kept the focus: the HUD over it takes none.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('stage');
    await expect.poll(async () => (await ledgerOf(demo.base, player)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await opened.finish('a11y-keyboard');
  });
});
