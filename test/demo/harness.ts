// The demo in real Chromium, served by Vite's dev server with the quest-points plugin (emulator + dev relay).
// Shared by the page tests and the accessibility tests; each file gets its own server, browser and Vite cache.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';

export const repo = fileURLToPath(new URL('../..', import.meta.url));
export const shots = `${repo}test-results/demo`;

export interface Opened {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions, except network failures the test declared expected. */
  errors: string[];
  expectNetworkErrors(pattern: RegExp): void;
  /** Screenshot, close, and assert no console error. */
  finish(name: string): Promise<void>;
}

export interface DemoServer {
  /** http://127.0.0.1:PORT, set once beforeAll has run. */
  readonly base: string;
  /** A new context and page at `path`; `prepare` runs on the page before it navigates (to listen from the start). */
  open(path: string, prepare?: (page: Page) => void): Promise<Opened>;
}

/**
 * Registers beforeAll/afterAll that start the demo's Vite server and Chromium. `cacheDir` keeps each file's
 * pre-bundled dependencies apart: two servers optimising phaser into one directory at once could clash.
 */
export function setupDemoServer(cacheName: string): DemoServer {
  let server: ViteDevServer;
  let browser: Browser;
  let base = '';

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    server = await createServer({
      configFile: `${repo}vite.config.ts`,
      cacheDir: `${repo}node_modules/.vite-${cacheName}`,
      server: { port: 0, host: '127.0.0.1', strictPort: false },
      logLevel: 'warn',
    });
    await server.listen();
    base = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(path: string, prepare?: (page: Page) => void): Promise<Opened> {
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
    prepare?.(page);
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

  return {
    get base() {
      return base;
    },
    open,
  };
}

export const numberIn = async (page: Page, selector: string) => Number(await page.locator(selector).getAttribute('data-value'));

export const waitForNumber = (page: Page, selector: string, predicate: string) =>
  page.waitForFunction(
    ([sel, pred]) => {
      const value = Number(document.querySelector(sel!)?.getAttribute('data-value'));
      return new Function('v', `return ${pred}`)(value) as boolean;
    },
    [selector, predicate] as const,
    { timeout: 20_000 },
  );

export type LedgerEntry = { questId: string; serviceUserId: string; eventPoints: number; idempotencyKey: string | null };

export async function ledgerOf(base: string, serviceUserId: string): Promise<LedgerEntry[]> {
  const response = await fetch(`${base}/__emulator/state`);
  const { data } = (await response.json()) as { data: { ledger: LedgerEntry[] } };
  return data.ledger.filter((entry) => entry.serviceUserId === serviceUserId);
}

export const uniqueId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
