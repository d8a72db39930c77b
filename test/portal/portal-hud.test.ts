// What the player sees where games are played: <quest-points-hud> in a portal's frame where storage is denied says
// an award waiting offline is "kept until you close this page" (not "will sync"), and a page whose token URL says the
// player is not signed in shows "sign in to save points" — not "offline" (Chromium, partitioning on).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { setupBrowserStack, uniqueId, until } from '../browser/harness.js';
import type { HudPage } from '../hud/pages/hud-page.js';
import { denyStorageInFrames, openFramed } from './portal.js';

const inContext = setupBrowserStack({
  portal: fileURLToPath(new URL('pages/portal.ts', import.meta.url)),
  hud: fileURLToPath(new URL('../hud/pages/hud-page.ts', import.meta.url)),
});

type HudWindow = { hudPage: HudPage };

describe('the HUD where games are played', () => {
  it(
    'framed, storage denied, offline: the waiting toast says "kept until you close this page"; back online it is sent',
    () =>
      inContext(async (stack, context) => {
        await denyStorageInFrames(context);
        const game = await openFramed(stack, context, { game: 'hud', sub: uniqueId('hud-denied'), toastMs: 0 });
        game.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED|ERR_EMPTY_RESPONSE|ERR_CONNECTION/);
        stack.blockApi(true);
        await context.setOffline(true);
        await game.frame().evaluate(() => (window as unknown as HudWindow).hudPage.award(7, 'gem', 'Gem found'));
        const words = () => game.frame().evaluate(() => (window as unknown as HudWindow).hudPage.drawn['+7 Gem found'] ?? []);
        await until(async () => (await words()).includes('kept until you close this page'), 'the memory-only word');
        expect(await words()).not.toContain('saved — will sync');
        const environment = await game.frame().evaluate(() => (window as unknown as HudWindow).hudPage.qp.getSnapshot().environment);
        expect(environment).toMatchObject({ storage: 'memory', storageReason: 'denied', framed: true });
        stack.blockApi(false);
        await context.setOffline(false);
        await until(async () => (await words()).includes('sent'), 'sent once back online', 20_000);
        expect(game.errors).toEqual([]);
      }),
    45_000,
  );

  it(
    'the token URL answers 401 (not signed in): the connection says "sign in to save points" (part sign-in), never offline',
    () =>
      inContext(async (stack, context) => {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`${stack.origin}/hud.html?${new URLSearchParams({ sub: uniqueId('hud-auth'), tokenStatus: '401', toastMs: '0' })}`);
        await page.waitForFunction(() => 'hudPage' in window);
        await page.evaluate(() => (window as unknown as HudWindow).hudPage.award(3));
        const connection = page.locator('quest-points-hud [part~=connection]');
        await until(async () => (await connection.textContent()) === 'sign in to save points', 'the sign-in state');
        expect(await connection.getAttribute('part')).toBe('connection sign-in');
        expect(await page.evaluate(() => (window as unknown as HudWindow).hudPage.qp.getSnapshot())).toMatchObject({
          authRequired: true,
          online: true,
        });
        expect(errors).toEqual([]);
      }),
    30_000,
  );
});
