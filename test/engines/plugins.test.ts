// quest-points/pixi, /babylon and /playcanvas in Chromium with each engine's real npm package drawing with WebGL:
// the plugin binds the client when the engine starts, an award through it reaches the ledger once, the live total
// (the plugin's, the HUD's over the canvas) follows, and destroying the engine leaves no HUD, no listener on a client
// the game handed in, and no timer or animation frame in the page.
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, setupBrowserStack, type Stack, uniqueId, until } from '../browser/harness.js';
import type { EnginePage } from './pages/engine-page.js';

const ENGINES = ['pixi', 'babylon', 'playcanvas'] as const;
const page = (name: string) => fileURLToPath(new URL(`pages/${name}-page.ts`, import.meta.url));
const inContext = setupBrowserStack(Object.fromEntries(ENGINES.map((name) => [name, page(name)])));

async function open(stack: Stack, context: BrowserContext, engine: string, mode: 'own' | 'given') {
  const tab: Page = await context.newPage();
  const errors: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  tab.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  const sub = uniqueId(engine);
  await tab.goto(`${stack.origin}/${engine}.html?sub=${sub}&mode=${mode}`);
  await tab.waitForFunction(() => 'enginePage' in window, undefined, { timeout: 20_000 });
  const run = <R, A = undefined>(fn: (p: EnginePage, arg: A) => R, arg?: A): Promise<Awaited<R>> =>
    tab.evaluate(
      ([source, a]) => new Function('p', 'arg', `return (${source})(p, arg)`)((window as unknown as { enginePage: EnginePage }).enginePage, a),
      [fn.toString(), arg] as const,
    );
  return { sub, errors, run };
}

describe('engine plugins in Chromium, with the engines’ npm packages', { timeout: 90_000 }, () => {
  for (const engine of ENGINES) {
    it(`${engine}: made with the engine, awards once, live total on the plugin and the HUD over the canvas; destroy leaves no HUD, timer or frame`, () =>
      inContext(async (stack, context) => {
        const { sub, errors, run } = await open(stack, context, engine, 'own');
        expect(await run((p) => p.start())).toEqual({ bound: true, webgl: true });
        // The HUD sits in the canvas's parent and covers the canvas's box exactly.
        await until(() => run((p) => p.hudPlacement()), 'the HUD over the canvas');
        expect(await run((p) => p.hudPlacement())).toEqual({ sameParent: true, box: [0, 0, 0, 0] });
        await run((p) => p.listen());
        const keys = await run((p) => [p.award(25, 'boss'), p.award(5, 'gem')]);
        await until(async () => (await run((p) => p.totals())).hud === '30', 'the HUD showing 30');
        expect((await run((p) => p.totals())).binding).toBe(30);
        expect(await run((p) => p.heard.at(-1))).toBe(30);
        await until(async () => (await stack.ledgerOf(sub)).length === 2, 'both awards in the ledger');
        await expectExactlyOnce(
          stack,
          sub,
          new Map([
            [keys[0]!, 25],
            [keys[1]!, 5],
          ]),
        );

        await run((p) => p.destroy());
        const left = await until(async () => {
          const now = await run((p) => p.leftBehind());
          return now.timers.timeout + now.timers.interval + now.timers.frame === 0 && now;
        }, 'no live timer or frame after destroy');
        expect(left).toEqual({ hud: 0, registrations: [], timers: { timeout: 0, interval: 0, frame: 0 }, bindingClosed: true });
        expect(errors).toEqual([]);
      }));

    it(`${engine}: a client the game hands in keeps working after the engine goes, with none of the plugin's listeners on it`, () =>
      inContext(async (stack, context) => {
        const { sub, errors, run } = await open(stack, context, engine, 'given');
        await run((p) => p.start());
        await run((p) => p.listen());
        await run((p) => p.award(7, 'coin'));
        await until(async () => (await run((p) => p.totals())).hud === '7', 'the HUD showing 7');
        expect((await run((p) => p.leftBehind())).registrations.length).toBeGreaterThan(0);
        await run((p) => p.destroy());
        const left = await run((p) => p.leftBehind());
        expect(left).toMatchObject({ hud: 0, registrations: [], bindingClosed: true });
        // The game's client is still open and still the one source of truth.
        expect((await run((p) => p.totals())).client).toBe(7);
        await until(async () => (await stack.ledgerOf(sub)).length === 1, 'the award in the ledger');
        await run((p) => p.closeGiven());
        await until(async () => {
          const { timers } = await run((p) => p.leftBehind());
          return timers.timeout + timers.interval + timers.frame === 0;
        }, 'no live timer once the game closed its client');
        expect(errors).toEqual([]);
      }));
  }
});
