// The portal harness: the game (the SDK test page at 127.0.0.1) framed by a portal page at localhost, another site,
// in Chromium with storage partitioning on (test/helpers/chromium.ts), as Poki, CrazyGames, itch.io or Discord frame
// a game. Each scenario ends with a verdict row for the suite's table.
import type { BrowserContext, ConsoleMessage, Frame, Page } from 'playwright-core';
import { expect } from 'vitest';
import { serviceKey, type PageOptions, type SdkPage, type Stack } from '../browser/harness.js';
import { until } from '../helpers/until.js';

export interface FramedGame {
  page: Page;
  /** The game's frame (found again after a reload). */
  frame(): Frame;
  /** Console errors and uncaught exceptions of the portal and the game, except failed requests declared expected. */
  errors: string[];
  expectNetworkErrors(pattern: RegExp): void;
  sdk<R, A = undefined>(fn: (page: SdkPage, arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  /** Reloads the portal page (the game in it too) and waits for the game's SDK. */
  reload(): Promise<void>;
}

/** The portal's origin: the same server under another site (localhost, not 127.0.0.1). */
export const portalOrigin = (stack: Stack) => stack.origin.replace('127.0.0.1', 'localhost');

/**
 * Opens the portal page framing the game; `sandbox`: the iframe's sandbox attribute (absent: none); `game`: the test
 * page framed (default 'sdk', the SDK page; 'hud', the HUD's page), its other options its query.
 */
export async function openFramed(
  stack: Stack,
  context: BrowserContext,
  options: PageOptions & { sandbox?: string; game?: 'sdk' | 'hud' } & Record<string, string | number | boolean | undefined>,
): Promise<FramedGame> {
  const { sandbox, game: name = 'sdk', ...game } = options;
  const page = await context.newPage();
  const errors: string[] = [];
  const expected: RegExp[] = [];
  const describe = (message: ConsoleMessage) => `${message.text()} (${message.location().url})`;
  page.on('console', (message) => {
    const allowed = message.text().startsWith('Failed to load resource') && expected.some((pattern) => pattern.test(describe(message)));
    if (message.type() === 'error' && !allowed) errors.push(describe(message));
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  const src = `${stack.origin}/${name}.html?${new URLSearchParams(Object.entries(game).map(([k, v]) => [k, String(v)]))}`;
  const portal = `${portalOrigin(stack)}/portal.html?${new URLSearchParams({ src, ...(sandbox === undefined ? {} : { sandbox }) })}`;
  const frame = () => {
    const found = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(stack.origin));
    if (!found) throw new Error('the game frame is not there');
    return found;
  };
  const ready = async () => {
    await until(() => page.frames().some((f) => f !== page.mainFrame() && f.url().startsWith(stack.origin)), 'the game frame');
    await frame().waitForFunction((global) => global in window, `${name}Page`, { timeout: 15_000 });
  };
  await page.goto(portal);
  await ready();
  return {
    page,
    frame,
    errors,
    expectNetworkErrors: (pattern) => void expected.push(pattern),
    sdk: (fn, arg) =>
      frame().evaluate(
        ([source, a]) => new Function('page', 'arg', `return (${source})(page, arg)`)((window as unknown as { sdkPage: SdkPage }).sdkPage, a),
        [fn.toString(), arg] as const,
      ),
    async reload() {
      await page.reload();
      await ready();
    },
  };
}

/** IndexedDB refused in the game's frame (SecurityError), as a browser blocking third-party storage refuses it. */
export async function denyStorageInFrames(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    if (window === window.top) return;
    IDBFactory.prototype.open = () => {
      throw new DOMException('access to the Indexed Database API is denied in this context', 'SecurityError');
    };
  });
}

/** One row of the suite's table. */
export interface Row {
  scenario: string;
  issued: number;
  persistedTrue: number;
  delivered: number;
  duplicates: number;
  reported: string;
}

/**
 * The verdict of a scenario: every award whose `persisted` resolved true is applied exactly once, no award is applied
 * twice (each key at most once in the ledger, nothing else for this player), and `delivered` of `issued`.
 */
export async function verdict(stack: Stack, sub: string, keys: string[], persisted: boolean[]): Promise<Omit<Row, 'scenario' | 'reported'>> {
  const ledger = await stack.ledgerOf(sub);
  const counts = new Map<string, number>();
  for (const entry of ledger)
    counts.set(entry.idempotencyKey?.toLowerCase() ?? 'null', (counts.get(entry.idempotencyKey?.toLowerCase() ?? 'null') ?? 0) + 1);
  const upstream = keys.map((key) => serviceKey(sub, key));
  const known = new Set(upstream);
  expect(
    [...counts.keys()].filter((key) => !known.has(key)),
    'ledger entries of no issued award',
  ).toEqual([]);
  upstream.forEach((key, i) => {
    if (persisted[i]) expect(counts.get(key), `award ${keys[i]} (persisted true) applied exactly once`).toBe(1);
    else expect(counts.get(key) ?? 0).toBeLessThanOrEqual(1);
  });
  const delivered = upstream.filter((key) => counts.has(key)).length;
  return {
    issued: keys.length,
    persistedTrue: persisted.filter(Boolean).length,
    delivered,
    duplicates: [...counts.values()].reduce((sum, n) => sum + n - 1, 0),
  };
}

/** The client's report in a few words: its environment and the storage events it emitted. */
export function reported(snapshot: { environment: Record<string, unknown> }, events: { name: string; data: Record<string, unknown> }[]): string {
  const env = snapshot.environment as {
    storage: string;
    storageReason?: string;
    partitioned: boolean | null;
    framed: boolean;
    sandboxed: boolean;
    persistent: boolean | null;
    closedTabDelivery: { available: boolean; reason?: string };
  };
  const parts = [
    `storage ${env.storage}${env.storageReason ? ` (${env.storageReason})` : ''}`,
    env.framed ? `framed${env.partitioned === null ? '' : env.partitioned ? ', partitioned' : ', not partitioned'}` : 'top-level',
    env.sandboxed ? 'sandboxed' : '',
    `persistent ${env.persistent}`,
    `closed-tab delivery ${env.closedTabDelivery.available ? 'yes' : `no (${env.closedTabDelivery.reason})`}`,
    ...events.filter((e) => e.name === 'storage:degraded').map((e) => `storage:degraded ${e.data.reason}`),
    events.some((e) => e.name === 'auth:required') ? 'auth:required' : '',
  ];
  return parts.filter(Boolean).join('; ');
}
