// A game's origin in one server: its static files (the page, its scripts) and the dev composition on the same
// origin (relay at /api, tokens at /__dev/token, emulator admin at /__emulator), as `quest-points dev` behind a
// static host gives a game maker. For pages that load the SDK with a plain <script> (the global build, engines).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDevServer, type DevServerOptions } from '../../src/dev/index.js';
import type { EmulatorState } from '../../src/emulator/index.js';
import { startNodeServer } from '../../src/kit/index.js';

export interface SiteFile {
  type: string;
  body: string | Uint8Array;
}

/** One applied award as the emulator's state exports it. */
export type SiteLedgerEntry = NonNullable<EmulatorState['ledger']>[number];

/** Starts the site on 127.0.0.1 (port 0); `files` maps a path to what it serves and may change while it runs. */
export async function startDevSite(files: Map<string, SiteFile>, options: DevServerOptions = {}) {
  const dev = createDevServer({ logger: () => {}, ...options });
  const server = await startNodeServer({
    host: '127.0.0.1',
    port: 0,
    fetch: (request, env) => {
      const file = files.get(new URL(request.url).pathname);
      if (!file) return dev.fetch(request, env);
      const body = typeof file.body === 'string' ? file.body : new Uint8Array(file.body);
      return new Response(body, { headers: { 'content-type': file.type, 'cache-control': 'no-store' } });
    },
  });
  return {
    url: server.url,
    /** The emulator's ledger entries of one user (the dev relay's serviceUserId is the token's sub). */
    async ledgerOf(serviceUserId: string): Promise<SiteLedgerEntry[]> {
      const answer = (await (await fetch(`${server.url}/__emulator/state`)).json()) as { data: { ledger: SiteLedgerEntry[] } };
      return answer.data.ledger.filter((entry) => entry.serviceUserId === serviceUserId);
    },
    close: server.close,
  };
}

export type DevSite = Awaited<ReturnType<typeof startDevSite>>;

/** Runs `run` with a page of a fresh browser context (closed after it), collecting uncaught errors and console errors. */
export async function withPage(browser: Browser, run: (page: Page, errors: string[], context: BrowserContext) => Promise<void>): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    await run(page, errors, context);
  } finally {
    await context.close();
  }
}
