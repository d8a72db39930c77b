// The JavaScript side of the Godot addon (engines/godot/addons/quest_points/web/) in Chromium, driven the way the
// addon's GDScript drives it, through a shim of JavaScriptBridge's conventions (javascript-bridge-shim.js): the
// files evaluated globally, the interface called with numbers and strings, one callback receiving ONE Array of the
// JS arguments. Against the dev relay and emulator on the page's origin (a Godot export is served the same way). The
// script-tag build the addon carries is checked against a fresh build (the addon ships it: a Godot user has no npm).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { type DevSite, type SiteFile, startDevSite } from '../helpers/dev-site.js';
import { testTempDir } from '../helpers/temp.js';
import { until } from '../helpers/until.js';

const repo = resolve(import.meta.dirname, '../..');
const web = join(repo, 'engines/godot/addons/quest_points/web');
const ADDON_FILES = ['/web/quest-points.global.js', '/web/quest_points_godot.js'] as const;

// Godot's default web shell, reduced: the canvas straight in <body>, the page's scripts after it.
const SHELL =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>godot</title>' +
  '<style>html,body{margin:0;height:100%;overflow:hidden}#canvas{display:block;width:640px;height:360px}</style>' +
  '<body><canvas id="canvas" width="640" height="360"></canvas><script src="/shim.js"></script></body>';

let site: DevSite;
let browser: Browser;

beforeAll(async () => {
  const files = new Map<string, SiteFile>([
    ['/index.html', { type: 'text/html', body: SHELL }],
    ['/shim.js', { type: 'text/javascript', body: await readFile(join(import.meta.dirname, 'javascript-bridge-shim.js'), 'utf8') }],
  ]);
  for (const file of ADDON_FILES) files.set(file, { type: 'text/javascript', body: await readFile(join(web, file.slice('/web/'.length)), 'utf8') });
  [site, browser] = await Promise.all([startDevSite(files), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** What the page holds: the shim (javascript-bridge-shim.js) and what the test's stand-in for the GDScript keeps. */
interface ShimWindow {
  GodotShim: {
    loadAddon(files: readonly string[]): Promise<void>;
    calls: unknown[][];
    handed: unknown[];
    JavaScriptObject: new (target: unknown) => object;
  };
  JavaScriptBridge: { get_interface(name: string): Bridge; create_callback(fn: (args: unknown[]) => void): unknown };
  bridge: Bridge;
  callback: unknown;
  events: unknown[][];
}
type Bridge = Record<string, (...args: unknown[]) => string | number | null>;

interface Shimmed {
  page: Page;
  errors: string[];
  /** The events the GDScript callback received, parsed: [name, payload]. */
  events(): Promise<[string, Record<string, unknown>][]>;
  close(): Promise<void>;
}

async function openShell(): Promise<Shimmed> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
  await page.goto(`${site.url}/index.html`);
  return {
    page,
    errors,
    events: () =>
      page.evaluate(() =>
        (window as unknown as { events: unknown[][] }).events.map(
          (args) => [args[0] as string, JSON.parse(args[1] as string)] as [string, Record<string, unknown>],
        ),
      ),
    close: () => context.close(),
  };
}

/** What quest_points.gd's _load_bridge() and start() do, in the page: load, get the interface, keep a callback, start. */
function start(page: Page, options: Record<string, unknown>) {
  return page.evaluate(
    async ([files, json]) => {
      const w = window as unknown as ShimWindow;
      await w.GodotShim.loadAddon(files);
      w.bridge = w.JavaScriptBridge.get_interface('QuestPointsGodot');
      w.events = [];
      // Kept in a member, as the GDScript keeps _on_event_callback.
      w.callback = w.JavaScriptBridge.create_callback((args: unknown[]) => w.events.push(args));
      return w.bridge.start!(json, w.callback);
    },
    [ADDON_FILES, JSON.stringify(options)] as const,
  );
}

const call = (page: Page, method: string, ...args: (string | number)[]) =>
  page.evaluate(([m, a]) => (window as unknown as ShimWindow).bridge[m]!(...a), [method, args] as const);

describe('the Godot addon’s JavaScript bridge, through a JavaScriptBridge shim', { timeout: 60_000 }, () => {
  it('carries the script-tag build of this commit (a Godot user has no npm; run `npm run build:godot` after changing the SDK)', async () => {
    const folder = testTempDir('qp-godot');
    await promisify(execFile)(process.execPath, [join(repo, 'scripts/build-global.mjs'), join(folder, 'fresh.js')]);
    const [built, carried] = await Promise.all([readFile(join(folder, 'fresh.js'), 'utf8'), readFile(join(web, 'quest-points.global.js'), 'utf8')]);
    expect(carried === built, 'engines/godot/addons/quest_points/web/quest-points.global.js is stale: run `npm run build:godot` and commit it').toBe(
      true,
    );
  });

  it('awards exactly once with a UTF-8 description; GDScript gets strings only, each callback one Array; the HUD over the canvas', async () => {
    const shell = await openShell();
    try {
      const { page } = shell;
      const error = await start(page, { relayUrl: '/api', tokenUrl: '/__dev/token?sub=godot-1', questId: 'q-godot', serviceUserId: 'godot-1' });
      expect(error).toBe('');
      const answer = await call(page, 'award', 12, 'boss', 'quest-é★');
      const { key } = JSON.parse(answer as string);
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      await until(async () => (await shell.events()).some(([name, p]) => name === 'award:sent' && p.key === key), 'award:sent through the callback');
      const events = await shell.events();
      expect(events.find(([name]) => name === 'award:queued')).toEqual(['award:queued', { key, points: 12, event: 'boss' }]);
      expect(events.filter(([name]) => name === 'points:changed').at(-1)![1]).toMatchObject({ total: 12 });
      expect(JSON.parse((await call(page, 'view')) as string)).toMatchObject({
        total: 12,
        history: [expect.objectContaining({ points: 12, event: 'boss', description: 'quest-é★' })],
      });
      const ledger = await site.ledgerOf('godot-1');
      expect(ledger.map(({ questId, eventPoints, eventName, eventDescription }) => ({ questId, eventPoints, eventName, eventDescription }))).toEqual([
        { questId: 'q-godot', eventPoints: 12, eventName: 'boss', eventDescription: 'quest-é★' },
      ]);
      // JavaScriptBridge's conventions: one Array per call, [name, json], both strings; nothing handed back is a
      // JavaScriptObject that GDScript would have to treat as an opaque proxy.
      const shape = await page.evaluate(() => {
        const shim = (window as unknown as ShimWindow).GodotShim;
        return {
          calls: shim.calls.length,
          arrays: shim.calls.every((args: unknown[]) => Array.isArray(args) && args.length === 2 && args.every((a) => typeof a === 'string')),
          objects: shim.handed.filter((v: unknown) => v instanceof shim.JavaScriptObject).length,
        };
      });
      expect(shape).toMatchObject({ arrays: true, objects: 0 });
      expect(shape.calls).toBeGreaterThanOrEqual(3);
      await until(() => page.evaluate(() => document.querySelector('quest-points-hud')?.total === 12), 'the HUD showing 12');
      expect(
        await page.evaluate(() => document.querySelector('quest-points-hud')!.parentElement === document.getElementById('canvas')!.parentElement),
      ).toBe(true);
      expect(JSON.parse((await call(page, 'snapshot')) as string)).toMatchObject({ online: true, queueSize: 0, deadLetterCount: 0 });
      expect(shell.errors).toEqual([]);
    } finally {
      await shell.close();
    }
  });

  it("a refused award reaches GDScript with the relay's code (award_rejected's fourth argument), counted nowhere", async () => {
    const shell = await openShell();
    try {
      const { page } = shell;
      expect(await start(page, { relayUrl: '/api', tokenUrl: '/__dev/token?sub=godot-3', questId: 'q-godot', serviceUserId: 'godot-3' })).toBe('');
      // The dev policy allows no negative amount for an event it does not list: 422, code policy.
      const { key } = JSON.parse((await call(page, 'award', -1, 'penalty', '')) as string);
      await until(async () => (await shell.events()).some(([name]) => name === 'award:rejected'), 'award:rejected through the callback');
      const [, payload] = (await shell.events()).find(([name]) => name === 'award:rejected')!;
      expect(payload).toMatchObject({ key, status: 422, code: 'policy', message: expect.stringMatching(/negative/) });
      expect(JSON.parse((await call(page, 'view')) as string)).toMatchObject({ total: 0, pending: 0 });
      // The browser logs the 422 response itself; nothing else went wrong.
      expect(shell.errors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
    } finally {
      await shell.close();
    }
  });

  it('the token from the game: token:needed, then provideToken; a refused award names the field; close() lets go of everything', async () => {
    const shell = await openShell();
    try {
      const { page } = shell;
      expect(await start(page, { relayUrl: '/api', questId: 'q-godot', serviceUserId: 'godot-2', hud: false })).toBe('');
      // A GDScript float can be INF: the SDK refuses it, naming the field and the rule.
      const refused = JSON.parse((await call(page, 'award', Number.POSITIVE_INFINITY, 'boss', '')) as string);
      expect(refused.error).toMatch(/eventPoints.*finite/);
      const { key } = JSON.parse((await call(page, 'award', 3, 'gem', '')) as string);
      await until(async () => (await shell.events()).some(([name]) => name === 'token:needed'), 'token:needed');
      // The game fetches the player's token its own way (here the dev token URL) and hands it in.
      const token = await page.evaluate(async () => (await (await fetch('/__dev/token?sub=godot-2')).json()).token as string);
      await call(page, 'provideToken', token);
      await until(async () => (await shell.events()).some(([name, p]) => name === 'award:sent' && p.key === key), 'award:sent');
      expect((await site.ledgerOf('godot-2')).map((entry) => entry.eventPoints)).toEqual([3]);
      expect(await page.evaluate(() => document.querySelectorAll('quest-points-hud').length)).toBe(0);

      await call(page, 'close');
      expect(await call(page, 'listenerCount')).toBe(0);
      const before = (await shell.events()).length;
      expect(JSON.parse((await call(page, 'award', 1, 'late', '')) as string).error).toMatch(/start\(\)/);
      expect(await call(page, 'view')).toBe('');
      expect((await shell.events()).length).toBe(before);
      expect(shell.errors).toEqual([]);
    } finally {
      await shell.close();
    }
  });

  it('without the script-tag build loaded, start() says so and nothing runs', async () => {
    const shell = await openShell();
    try {
      const answer = await shell.page.evaluate(async (file) => {
        const w = window as unknown as ShimWindow;
        await w.GodotShim.loadAddon([file]);
        const bridge = w.JavaScriptBridge.get_interface('QuestPointsGodot');
        w.callback = w.JavaScriptBridge.create_callback(() => {});
        return { started: bridge.start!('{}', w.callback) as string, award: bridge.award!(1, 'x', '') as string };
      }, ADDON_FILES[1]);
      expect(answer.started).toMatch(/QuestPoints is missing/);
      expect(JSON.parse(answer.award)).toEqual({ error: expect.stringMatching(/start\(\)/) });
    } finally {
      await shell.close();
    }
  });
});
