// The README quick start, run as written in real Chromium: its client snippet is taken from README.md verbatim and
// served at https://game.example.com (page.route), whose /api/* is forwarded to a real relay in front of the emulator
// and whose /__dev/token mints the player's token (what quest-points/vite serves in development). The service already
// holds 40 points. Then: three awards; two awards offline, then online; one award, a reload while offline, then
// online. The total must never go down, must equal the ledger at the end, and the history must list each award
// exactly once. (test/examples/ plays the same page on a real Vite server.)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_BUNDLE } from '../helpers/bundle.js';
import { launchChromium } from '../helpers/chromium.js';
import { startStack, type ServedStack } from '../helpers/stack.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ORIGIN = 'https://game.example.com';
const PLAYER = 'dev-player'; // the snippet's serviceUserId: the subject of /__dev/token's tokens

/** The README's client snippet, verbatim. */
function readmeClientSnippet(): string {
  const blocks = [...readFileSync(`${root}README.md`, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const snippet = blocks.find((b) => b.includes('createQuestPoints(') && b.includes('collectCoin'));
  if (!snippet) throw new Error('README.md has no ```ts block with createQuestPoints');
  return snippet;
}

/** The page: the snippet as written, then what the test adds: every total recorded across reloads, a coin on load. */
async function pageScript(): Promise<string> {
  const contents = [
    readmeClientSnippet(),
    `qp.on('points:changed', ({ view }) => { const seen = JSON.parse(sessionStorage.getItem('totals') ?? '[]'); seen.push(view.totalPoints); sessionStorage.setItem('totals', JSON.stringify(seen)); });`,
    `Object.assign(window, { qp });`,
    `collectCoin();`,
  ].join('\n');
  const result = await build({
    stdin: { contents, loader: 'ts', resolveDir: root },
    alias: {
      'quest-points/hud': `${root}src/hud/index.ts`,
      'quest-points/sw': `${root}src/sw/index.ts`,
      'quest-points': `${root}src/client/index.ts`,
    },
    ...BROWSER_BUNDLE,
  });
  return result.outputFiles[0]!.text;
}

let browser: Browser;
let stack: ServedStack;
let script: string;

beforeAll(async () => {
  [browser, stack, script] = await Promise.all([
    launchChromium(),
    startStack({ policy: { events: { coin: { maxPoints: 5 } }, maxPointsPerAward: 5 }, relayOptions: { corsOrigins: [ORIGIN] } }),
    pageScript(),
  ]);
  // The service already holds 40 points for this player (awarded with the API key, as an operator would).
  const seeded = await stack.service('POST', '/group-quests/summer/points', { serviceUserId: PLAYER, eventPoints: 40, eventName: 'welcome_bonus' });
  expect(seeded.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** https://game.example.com: the page, the player's token, and /api/* forwarded to the relay unless "offline". */
async function serveGame(page: Page, network: { offline: boolean }) {
  await page.route(`${ORIGIN}/**`, async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (url.pathname === '/')
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><div id="game" style="position: relative; height: 300px"></div><script type="module" src="/app.js"></script>',
      });
    if (url.pathname === '/app.js') return route.fulfill({ contentType: 'text/javascript', body: script });
    if (url.pathname === '/__dev/token')
      return route.fulfill({
        contentType: 'application/json',
        body: JSON.stringify({ token: await stack.token(PLAYER, { quests: ['summer'] }, { ttl: '15m' }) }),
      });
    if (!url.pathname.startsWith('/api/')) return route.fulfill({ status: 404, body: '' });
    if (network.offline) return route.abort('internetdisconnected');
    const body = request.postDataBuffer();
    const answer = await fetch(stack.relay.url + url.pathname.slice(4) + url.search, {
      method: request.method(),
      headers: await request.allHeaders(),
      body: body ? new Uint8Array(body) : undefined,
    }).catch(() => undefined);
    if (!answer) return route.abort('connectionrefused');
    return route.fulfill({ status: answer.status, headers: Object.fromEntries(answer.headers), body: Buffer.from(await answer.arrayBuffer()) });
  });
}

async function ledger() {
  const response = await stack.service('GET', `/group-quests/summer/points/${PLAYER}`);
  return ((await response.json()) as { data: { totalPoints: number; history: { eventPoints: number; eventName: string }[] } }).data;
}

const totals = (page: Page) => page.evaluate(() => JSON.parse(sessionStorage.getItem('totals') ?? '[]') as number[]);
const lastTotal = async (page: Page) => (await totals(page)).at(-1);
const queueSize = (page: Page) =>
  page.evaluate(() => (window as unknown as { qp: { getSnapshot(): { queueSize: number } } }).qp.getSnapshot().queueSize);
const award = (page: Page) =>
  page.evaluate(() => void (window as unknown as { qp: { award(a: object): void } }).qp.award({ eventPoints: 5, eventName: 'coin' }));
const setOnline = (page: Page, network: { offline: boolean }, online: boolean) => {
  network.offline = !online;
  // What the browser fires when the network goes and comes back.
  return page.evaluate((type) => void window.dispatchEvent(new Event(type)), online ? 'online' : 'offline');
};

describe('README quick start in Chromium', () => {
  it('shows a live total that never goes down, equals the ledger, and lists each award once', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const network = { offline: false };
    await serveGame(page, network);
    await page.goto(`${ORIGIN}/`);
    // The snippet's own award on load; the start-up read brings the 40 already held.
    await expect.poll(() => lastTotal(page), { timeout: 15_000 }).toBe(45);

    for (let i = 0; i < 3; i++) await award(page);
    await expect.poll(() => lastTotal(page), { timeout: 15_000 }).toBe(60);
    await expect.poll(() => queueSize(page), { timeout: 15_000 }).toBe(0);

    await setOnline(page, network, false);
    await award(page);
    await award(page);
    await expect.poll(() => lastTotal(page), { timeout: 10_000 }).toBe(70);
    await setOnline(page, network, true);
    await expect.poll(() => queueSize(page), { timeout: 15_000 }).toBe(0);

    await setOnline(page, network, false);
    await award(page);
    await expect.poll(() => lastTotal(page), { timeout: 10_000 }).toBe(75);
    // Offline reload: the snippet awards again on load; the cached total and the outbox show at once.
    await page.reload({ waitUntil: 'load' });
    await expect.poll(() => lastTotal(page), { timeout: 15_000 }).toBe(80);
    await setOnline(page, network, true);
    await expect.poll(() => queueSize(page), { timeout: 20_000 }).toBe(0);

    const service = await ledger();
    expect(service.totalPoints).toBe(80);
    // Settled: the view's history is the service's, each award once, nothing pending or sent left.
    await expect
      .poll(
        () =>
          page.evaluate(() =>
            (window as unknown as { qp: { viewPoints(): { history: { state: string }[] } } }).qp.viewPoints().history.map((e) => e.state),
          ),
        { timeout: 20_000 },
      )
      .toEqual(Array(service.history.length).fill('confirmed'));
    expect(service.history.filter((e) => e.eventName === 'coin')).toHaveLength(8);
    const seen = await totals(page);
    expect(seen.at(-1)).toBe(80);
    for (let i = 1; i < seen.length; i++) expect(seen[i], `HUD totals ${seen.join(' → ')}`).toBeGreaterThanOrEqual(seen[i - 1]!);
    console.log(`quick start HUD totals: ${seen.join(' → ')}`);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
