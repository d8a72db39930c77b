// The end of a chaos run, seen from the pages: what is still queued, flushing until nothing is, and waiting for the
// relay to finish what closed pages left in flight.
import type { Page } from 'playwright-core';
import type { ChaosGlobal } from './pages/protocol.js';
import type { Stack } from './stack.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keys still queued in the storages of these pages (one page per storage name): IndexedDB and any rescue. */
export async function stored(pages: Page[]): Promise<string[]> {
  const left: string[] = [];
  for (const page of pages) left.push(...(await page.evaluate(() => (globalThis as ChaosGlobal).chaos.stored())));
  return left;
}

/** Flushes these pages until their storages are empty or the time is up; what is left. */
export async function drainPages(pages: Page[], timeoutMs: number, progress: (left: number) => void): Promise<string[]> {
  let left = await stored(pages);
  for (let until = Date.now() + timeoutMs, n = 0; left.length > 0 && Date.now() < until; left = await stored(pages), n++) {
    if (n % 40 === 0) progress(left.length);
    await Promise.all(pages.map((page) => page.evaluate(() => (globalThis as ChaosGlobal).chaos.flush()).catch(() => {})));
    await sleep(250);
  }
  return left;
}

/** Requests cut by a closed page may still be at work in the relay: wait until the service sees nothing new. */
export async function quiescent(stack: Stack, quietMs = 1500, timeoutMs = 30_000): Promise<void> {
  let last = -1;
  let since = Date.now();
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(250)) {
    // Award requests only: the balancer's health checks make the relays probe the service every second.
    const count = ((await stack.admin('GET', '/requests')) as { method: string }[]).filter((r) => r.method === 'POST').length;
    if (count !== last || stack.inFlight().length) {
      last = count;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
  }
}
