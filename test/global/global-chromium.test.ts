// quest-points/global in a real browser: the script-tag build, built by scripts/build-global.mjs exactly as
// `npm run build` does, loaded with a plain (classic) <script> on a page with no bundler, against the dev relay and
// emulator on the same origin. It awards, the award lands once, and the HUD element it defines shows the total.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { startDevSite, withPage, type DevSite, type SiteFile } from '../helpers/dev-site.js';
import { until } from '../helpers/until.js';

const repo = resolve(import.meta.dirname, '../..');
/**
 * The script-tag build's budget, min+gzip (the SDK, tokenFrom and the HUD; ES2017 without destructuring, for emscripten).
 * It carries the SDK's lazy chunks inline (an IIFE cannot split): 24,083 B at first; 27,540 B once issue 30's one-writer
 * client and issue 28's environment report and token rule were merged (2026-11-25); about 27.1 KB since the SDK's own
 * import()s are static imports in this build and its dead constants dropped before emscripten (2026-11-26); 30,316 B
 * with issue 34 (2026-11-27): every lazy chunk it added is inline here — the idempotent dead-letter retry (uuid's v5
 * and SHA-1, 1.2 KB minified), the held queue and whose-refusal rule, the player rule, the legacy-letter migration,
 * the typed reducer. The SDK's own up-front entry stayed within its 14 KB (test/client/size.test.ts). 30,800 B with
 * issue 37 (30,530 B measured on main at 322e40d -> 30,730 B): the stored-format contract (client/format.ts) in the
 * store's reads and the rescue merge. 31,000 B once issue 35's onceKey joined (30,879 B measured, 2026-11-27).
 */
const GLOBAL_BUDGET_BYTES = 31_000;

const PAGE =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>script tag</title>' +
  '<div id="game" style="position:relative;width:320px;height:240px"></div><script src="/quest-points.js"></script>';

let folder: string;
let script: string;
let site: DevSite;
let browser: Browser;
const files = new Map<string, SiteFile>();

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'qp-global-'));
  await promisify(execFile)(process.execPath, [join(repo, 'scripts/build-global.mjs'), join(folder, 'quest-points.js')]);
  script = await readFile(join(folder, 'quest-points.js'), 'utf8');
  files.set('/index.html', { type: 'text/html', body: PAGE });
  files.set('/quest-points.js', { type: 'text/javascript', body: script });
  // A page without an icon link asks for /favicon.ico: answered, so a 404 in the console is a real fault.
  files.set('/favicon.ico', { type: 'image/x-icon', body: '' });
  [site, browser] = await Promise.all([startDevSite(files), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

it(`is one minified script of at most ${GLOBAL_BUDGET_BYTES} B min+gzip, with no module syntax`, () => {
  const gzip = gzipSync(script, { level: 9 }).length;
  console.info(`quest-points/global: ${script.length} B minified, ${gzip} B min+gzip`);
  expect(gzip).toBeLessThanOrEqual(GLOBAL_BUDGET_BYTES);
  // A classic script: an import or export statement would be a syntax error there (the page test proves it too).
  expect(() => new Function(script)).not.toThrow();
});

it("docs/script-tag.md's page, as written (its CDN URL pointed here): a click awards 10 points, once, and the HUD shows them", async () => {
  const docs = await readFile(join(repo, 'docs/script-tag.md'), 'utf8');
  const html = /```html\n([\s\S]*?)```/.exec(docs)![1]!;
  const cdn = /<script src="(https:\/\/unpkg\.com\/quest-points@[^"]+)"><\/script>/.exec(html)![1]!;
  expect(cdn).toBe(`https://unpkg.com/quest-points@${JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')).version}`);
  files.set('/click.html', { type: 'text/html', body: html.replace(cdn, '/quest-points.js') });
  await withPage(browser, async (page, errors) => {
    await page.goto(`${site.url}/click.html`);
    await page.click('#game');
    await until(async () => (await site.ledgerOf('dev-player')).length === 1, 'the click award in the ledger', 30_000);
    await until(() => page.evaluate(() => document.querySelector('quest-points-hud')?.total === 10), 'the HUD to show 10', 30_000);
    const [entry] = await site.ledgerOf('dev-player');
    expect(entry).toMatchObject({ questId: 'summer', eventPoints: 10, eventName: 'click', eventDescription: 'Clicked the game' });
    expect(errors).toEqual([]);
  });
}, 60_000);

it('loaded by a plain <script>, defines window.QuestPoints and the HUD element, and awards exactly once', async () => {
  await withPage(browser, async (page, errors) => {
    await page.goto(`${site.url}/index.html`);
    const shape = await page.evaluate(() => ({
      names: Object.keys(window.QuestPoints).sort(),
      frozen: Object.isFrozen(window.QuestPoints),
      version: window.QuestPoints.version,
      hud: customElements.get('quest-points-hud') === window.QuestPoints.QuestPointsHud,
    }));
    expect(shape).toEqual({
      names: [
        'HUD_STRINGS',
        'QuestPointsError',
        'QuestPointsHud',
        'attachHud',
        'createQuestPoints',
        'pointsKey',
        'readToken',
        'tokenFrom',
        'version',
      ],
      frozen: true,
      version: JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')).version,
      hud: true,
    });

    // What a page with no bundler writes: everything from window.QuestPoints.
    const outcome = await page.evaluate(async () => {
      const { createQuestPoints, tokenFrom, attachHud } = window.QuestPoints;
      const qp = createQuestPoints({
        relayUrl: '/api',
        getToken: tokenFrom('/__dev/token?sub=tag-player'),
        questId: 'q-global',
        serviceUserId: 'tag-player',
      });
      const hud = attachHud(qp, { parent: document.getElementById('game')! });
      (window as unknown as { hud: typeof hud }).hud = hud;
      const handle = qp.award({ eventPoints: 7, eventName: 'script-tag', eventDescription: 'quest-é★' });
      const settled = await handle.settled;
      return { outcome: settled.outcome, key: handle.idempotencyKey, total: qp.viewPoints().totalPoints };
    });
    expect(outcome).toEqual({ outcome: 'sent', key: expect.stringMatching(/^[0-9a-f-]{36}$/), total: 7 });
    const ledger = await site.ledgerOf('tag-player');
    expect(ledger.map(({ questId, eventPoints, eventName, eventDescription }) => ({ questId, eventPoints, eventName, eventDescription }))).toEqual([
      { questId: 'q-global', eventPoints: 7, eventName: 'script-tag', eventDescription: 'quest-é★' },
    ]);
    // The HUD the build defines counts up to the total.
    await until(() => page.evaluate(() => (window as unknown as { hud: { total: number } }).hud.total === 7), 'the HUD to show 7');

    // A second copy of the build on the page (a CDN script and an engine's .jspre) keeps the first.
    const kept = await page.evaluate(async () => {
      const first = window.QuestPoints;
      const again = document.createElement('script');
      again.src = '/quest-points.js?again';
      await new Promise((done, fail) => {
        again.onload = done;
        again.onerror = fail;
        document.head.append(again);
      });
      return window.QuestPoints === first;
    });
    expect(kept).toBe(true);
    expect(errors).toEqual([]);
  });
}, 60_000);
