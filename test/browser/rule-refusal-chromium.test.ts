// A rule's refusal typed end to end (issue 35, item 2), in real Chromium against the real relay and its economy rules
// (the dev composition: relay at /api, emulator, token route), the page loading the script-tag build: each refused
// award's code reaches award:rejected and the dead letter, single route and batch; the award counts nowhere; the HUD
// says a player's words for it, never the operator's message.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { startDevSite, withPage, type DevSite, type SiteFile } from '../helpers/dev-site.js';
import { until } from '../helpers/until.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const POLICY = {
  allowUnknownEvents: true,
  maxPointsPerAward: 1000,
  rateLimits: { perPlayer: { limit: 1200, windowSeconds: 60 }, perIp: { limit: 6000, windowSeconds: 60 } },
  events: {
    coin: { maxPoints: 10, cooldownSeconds: 600 },
    'first-win': { points: 50, once: true },
    bonus: { maxPoints: 100 },
  },
  budgets: [{ points: 15, window: 'day', event: 'bonus' }],
  campaigns: { winter: { endsAt: '2020-01-01T00:00:00Z' } },
  bans: ['banned-player'],
};

const PAGE =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>rules</title>' +
  '<div id="game" style="position:relative;width:320px;height:240px"></div><script src="/quest-points.js"></script>';

let folder: string;
let site: DevSite;
let browser: Browser;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'qp-rules-'));
  await promisify(execFile)(process.execPath, [join(repo, 'scripts/build-global.mjs'), join(folder, 'quest-points.js')]);
  const files = new Map<string, SiteFile>([
    ['/index.html', { type: 'text/html', body: PAGE }],
    ['/quest-points.js', { type: 'text/javascript', body: await readFile(join(folder, 'quest-points.js'), 'utf8') }],
  ]);
  [site, browser] = await Promise.all([startDevSite(files, { policy: POLICY as never }), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

it("each rule's refusal: its code on award:rejected and the dead letter (single and batch), counted nowhere, worded by the HUD", async () => {
  await withPage(browser, async (page, errors) => {
    await page.goto(`${site.url}/index.html`);
    const seen = await page.evaluate(async () => {
      const { createQuestPoints, tokenFrom, attachHud } = window.QuestPoints;
      // Each player a storage of their own (one outbox per player on a shared computer is docs/sdk.md's other case).
      const make = (sub: string) =>
        createQuestPoints({
          relayUrl: '/api',
          getToken: tokenFrom(`/__dev/token?sub=${sub}`),
          questId: 'summer',
          serviceUserId: sub,
          storageName: `qp-${sub}`,
        });
      const qp = make('eco-player');
      attachHud(qp, { parent: document.getElementById('game')!, toastMs: 0, toasts: 10 });
      const heard: { code?: string; status: number; eventName?: string }[] = [];
      qp.on('award:rejected', ({ deadLetter }) => heard.push({ code: deadLetter.code, status: deadLetter.status, eventName: deadLetter.eventName }));
      const one = async (input: Parameters<typeof qp.award>[0]) => {
        const outcome = await qp.award(input).settled;
        return outcome.outcome === 'rejected' ? `rejected ${outcome.deadLetter.code}` : outcome.outcome;
      };
      const single = [
        await one({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-1' }),
        await one({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-1' }),
        await one({ eventPoints: 10, eventName: 'coin' }),
        await one({ eventPoints: 10, eventName: 'coin' }),
        await one({ eventPoints: 10, eventName: 'bonus' }),
        await one({ eventPoints: 10, eventName: 'bonus' }),
        await one({ eventPoints: 5, eventName: 'bonus', questId: 'winter' }),
      ];
      // Two in one tick: the batch route, each with its own result.
      const batch = await Promise.all(
        [
          qp.award({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-2' }),
          qp.award({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-2' }),
        ].map(async (h) => (await h.settled).outcome),
      );
      const banned = make('banned-player');
      const ban = await banned.award({ eventPoints: 1, eventName: 'coin' }).settled;
      const view = qp.viewPoints();
      return {
        single,
        batch: batch.sort(),
        ban: ban.outcome === 'rejected' ? [ban.deadLetter.status, ban.deadLetter.code] : ban.outcome,
        heard,
        letters: (await qp.deadLetters()).map((d) => d.code).sort(),
        total: view.totalPoints,
        pending: view.pendingPoints,
        queue: qp.getSnapshot().queueSize,
      };
    });
    expect(seen.single).toEqual(['sent', 'rejected once', 'sent', 'rejected cooldown', 'sent', 'rejected budget', 'rejected campaign']);
    expect(seen.batch).toEqual(['rejected', 'sent']);
    expect(seen.ban).toEqual([403, 'banned']);
    expect(seen.heard.map((h) => h.code)).toEqual(['once', 'cooldown', 'budget', 'campaign', 'once']);
    expect(seen.heard.map((h) => h.status)).toEqual([422, 422, 422, 422, 422]);
    expect(seen.letters).toEqual(['budget', 'campaign', 'cooldown', 'once', 'once']);
    // Counted nowhere: 50 + 10 + 10 + 50 applied, nothing pending, nothing left to send.
    expect(seen).toMatchObject({ total: 120, pending: 0, queue: 0 });
    expect((await site.ledgerOf('eco-player')).map((e) => e.eventPoints)).toEqual([50, 10, 10, 50]);
    // The HUD's words for the player (the own quest's toasts), never the operator's message with its numbers.
    const words = async () =>
      page.locator('quest-points-hud [part~=toast]').evaluateAll((lis) => lis.map((li) => li.querySelector('[part~=state]')?.textContent));
    await until(async () => (await words()).filter((w) => w !== 'sent' && w !== 'confirmed').length === 4, 'four refused toasts', 10_000);
    expect((await words()).filter((w) => w !== 'sent' && w !== 'confirmed')).toEqual([
      'already earned',
      'limit reached',
      'try again later',
      'already earned',
    ]);
    expect(await page.locator('quest-points-hud').evaluate((hud) => hud.shadowRoot!.textContent)).not.toMatch(/budgets\[0\]|15 points/);
    expect(errors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
  });
}, 90_000);
