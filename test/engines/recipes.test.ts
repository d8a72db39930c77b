// The engine recipes of docs/engines.md (and docs/hud.md's PixiJS one) run in Chromium as written: each is a file of
// examples/recipes/, shown in the docs verbatim (a `<!-- snippet: -->` block each, checked by test/docs/snippets.test.ts), bundled the way a game's bundler would (its
// 'quest-points/*' imports resolved to this repository's sources) with the engine's real npm package, on the page
// its second line gives, against the dev relay and emulator on the same origin. A click where the recipe awards puts
// the award in the ledger once and the HUD's total at its points.
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_BUNDLE } from '../helpers/bundle.js';
import { sourcedSnippets } from '../docs/snippet-sources.js';
import { launchChromium } from '../helpers/chromium.js';
import { type SiteFile, startDevSite } from '../helpers/dev-site.js';
import { until } from '../helpers/until.js';

const repo = resolve(import.meta.dirname, '../..');
const recipes = join(repo, 'examples/recipes');
/** What each recipe awards on a click at the middle of #game. */
const AWARDS: Record<string, { eventPoints: number; eventName: string }> = {
  'three.js': { eventPoints: 10, eventName: 'cube' },
  'kaplay.js': { eventPoints: 5, eventName: 'coin' },
  'excalibur.js': { eventPoints: 3, eventName: 'gem' },
  'littlejs.js': { eventPoints: 1, eventName: 'tap' },
  'pixi.js': { eventPoints: 10, eventName: 'star' },
  'babylon.js': { eventPoints: 10, eventName: 'box' },
  'playcanvas.js': { eventPoints: 5, eventName: 'box' },
};
/**
 * Recipes whose scene must come out lit: the region of the canvas (x, y, width, height) where their mesh always is.
 * A mesh with no light in its scene renders black on the clear colour (PlayCanvas's box did).
 */
const LIT: Record<string, [number, number, number, number]> = { 'playcanvas.js': [350, 250, 100, 100] };

/** Whether a tenth of the region is bright (a channel over 100 of 255): the canvas as shown, read from a screenshot. */
async function litPixels(page: Page, [x, y, width, height]: [number, number, number, number]): Promise<boolean> {
  const png = (await page.locator('#game canvas').screenshot()).toString('base64');
  const bright = await page.evaluate(
    async ({ png, x, y, width, height }) => {
      const image = await createImageBitmap(await (await fetch(`data:image/png;base64,${png}`)).blob());
      const context = new OffscreenCanvas(image.width, image.height).getContext('2d')!;
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(x, y, width, height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.max(data[i]!, data[i + 1]!, data[i + 2]!) > 100) count++;
      return count;
    },
    { png, x, y, width, height },
  );
  return bright > (width * height) / 10;
}

const entry = (sub: string) => join(repo, 'src', sub, 'index.ts');
const ALIASES = {
  'quest-points': entry('client'),
  'quest-points/hud': entry('hud'),
  'quest-points/sw': entry('sw'),
  'quest-points/pixi': entry('pixi'),
  'quest-points/babylon': entry('babylon'),
  'quest-points/playcanvas': entry('playcanvas'),
};

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('docs show the recipes verbatim', () => {
  // A shown recipe equals its file: test/docs/snippets.test.ts checks every `<!-- snippet: -->` block. Here: every
  // recipe is shown.
  it('every recipe of examples/recipes/ is a `<!-- snippet: examples/recipes/X -->` block of the docs', async () => {
    const shown = new Set(
      sourcedSnippets().flatMap((s) => (s.source.startsWith('examples/recipes/') ? [s.source.slice('examples/recipes/'.length)] : [])),
    );
    expect([...shown].sort()).toEqual((await readdir(recipes)).sort());
  });
});

describe('engine recipes in Chromium, as written', { timeout: 120_000 }, () => {
  for (const [file, award] of Object.entries(AWARDS)) {
    it(`${file}: a click awards ${award.eventPoints} once; the HUD shows it`, async () => {
      const source = await readFile(join(recipes, file), 'utf8');
      const markup = /^\/\/ The page: (<div id="game".*<\/div>)$/m.exec(source)?.[1];
      expect(markup, 'the recipe names its page').toBeDefined();
      const bundled = await build({ ...BROWSER_BUNDLE, entryPoints: [join(recipes, file)], alias: ALIASES, target: 'chrome120' });
      const files = new Map<string, SiteFile>([
        [
          '/index.html',
          {
            type: 'text/html',
            body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${file}</title><body style="margin:0">${markup}<script type="module" src="/recipe.js"></script></body>`,
          },
        ],
        ['/recipe.js', { type: 'text/javascript', body: bundled.outputFiles[0]!.text }],
      ]);
      const site = await startDevSite(files);
      const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
        await page.goto(`${site.url}/index.html`);
        await until(
          () => page.evaluate(() => !!document.querySelector('#game canvas') && !!document.querySelector('quest-points-hud')),
          'the canvas and the HUD',
        );
        if (file in LIT) await until(() => litPixels(page, LIT[file]!), `${file} draws its scene lit (not black)`, 20_000);
        const box = (await page.locator('#game').boundingBox())!;
        // The engine may need a few frames before its input is live: click, then wait a while for the award; only
        // if none came, click again.
        const total = () => page.evaluate(() => document.querySelector('quest-points-hud')?.total ?? 0);
        await until(
          async () => {
            await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
            return until(total, 'an award', 4_000).catch(() => false);
          },
          'a click that awards',
          30_000,
        );
        await until(async () => (await site.ledgerOf('dev-player')).length > 0, 'the award in the ledger');
        const ledger = await site.ledgerOf('dev-player');
        expect(ledger.map(({ eventPoints, eventName }) => ({ eventPoints, eventName }))).toEqual([award]);
        expect(await total()).toBe(award.eventPoints);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await site.close();
      }
    });
  }
});
