// Real-browser harness for the SDK: emulator <- relay <- a same-origin front server (test page, SDK bundle, player
// tokens, /api/* proxied to the relay and logged), and Chromium pages driving window.sdkPage.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { browserBundle } from '../helpers/bundle.js';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { FaultConfig, RequestLogEntry, RunningEmulator } from '../../src/emulator/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { ROOMY_POLICY, upstreamKey } from '../helpers/fixtures.js';
import { startStack as startServedStack } from '../helpers/stack.js';
import type { SdkPage } from './pages/sdk-page.js';

export type { SdkPage };
export type { RecordedEvent } from './pages/sdk-page.js';

export const QUEST = 'browser-quest';

/** One award-carrying request (batch or single) as the front proxy saw it; times from performance.now(). */
export interface ProxiedAward {
  tab: string;
  /** The page load that sent it (a reload is a new instance). */
  instance: string;
  path: string;
  keys: string[];
  start: number;
  end?: number;
  status?: number;
}

export interface Stack {
  origin: string;
  browser: Browser;
  emulator: RunningEmulator;
  /** Award requests seen by the proxy, in arrival order. */
  awards: ProxiedAward[];
  /** 'start' and 'end' with the ProxiedAward. */
  proxyEvents: EventEmitter;
  setFaults(faults: FaultConfig): Promise<void>;
  /**
   * While true the proxy drops every /api/* connection unanswered (a network error in the page). Unlike
   * page.route, it also catches the keepalive request the SDK sends on pagehide.
   */
  blockApi(blocked: boolean): void;
  /**
   * Drops (unanswered) every award request made with the tokens of this tab label from now on: a closed page's
   * keepalive batch, which DevTools offline emulation holds and lets out once the context is back online (a device
   * really offline fails it at once).
   */
  dropTab(tab: string): void;
  /** Drops (unanswered) every /api/* request made with a token of a page load `except` refuses, until undropTabs(). */
  dropLoadsBut(except: (instance: string) => boolean): void;
  undropTabs(): void;
  /** /api/* requests dropped while blocked. */
  dropped(): number;
  /**
   * Token URL requests, in order: `refused` when it was the deliberately bad token (the token URL's `refuse`),
   * `status` when it was not answered 200 (an outage), `at` from performance.now().
   */
  tokenRequests: { sub: string; tab: string; instance: string; refused: boolean; status?: number; at: number }[];
  /** From now on, for `forMs`, the token URL answers `status` with `Retry-After: retryAfterSeconds`: the login route down. */
  tokenOutage(outage: { forMs: number; status: number; retryAfterSeconds: number }): void;
  /** The emulator's request log (service requests, oldest first). */
  serviceRequests(): Promise<RequestLogEntry[]>;
  /** The emulator's ledger entries of one user. */
  ledgerOf(serviceUserId: string): Promise<LedgerEntry[]>;
  close(): Promise<void>;
}

export interface LedgerEntry {
  questId: string;
  serviceUserId: string;
  eventPoints: number;
  idempotencyKey: string | null;
}

const here = fileURLToPath(new URL('.', import.meta.url));

const bundlePage = () => browserBundle(`${here}pages/sdk-page.ts`);
/** quest-points/sw.js, from source. */
const bundleWorker = () => browserBundle(`${here}../../src/sw/worker.ts`);

const PAGE_HTML =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>quest-points SDK</title><script type="module" src="/sdk-page.js"></script>';

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const isAwardPath = (path: string) => path === '/batch/points' || /^\/group-quests\/[^/]+\/points$/.test(path);

function keysOf(path: string, body: Buffer, req: IncomingMessage): string[] {
  if (path !== '/batch/points') return [String(req.headers['idempotency-key'] ?? req.headers.idempotency_key ?? '')];
  try {
    return (JSON.parse(body.toString()) as { awards: { idempotencyKey: string }[] }).awards.map((a) => a.idempotencyKey);
  } catch {
    return [];
  }
}

/**
 * Other test pages: name -> entry module, served as /<name>.html (with a #root element) and /<name>.js; or a function
 * that makes the script itself (a build of another release's code, test/browser/cross-version.test.ts).
 */
export type ExtraPages = Record<string, string | (() => Promise<string>)>;

const pageHtml = (name: string) =>
  `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>quest-points ${name}</title><div id="root"></div><script type="module" src="/${name}.js"></script>`;

export async function startStack(pages: ExtraPages = {}): Promise<Stack> {
  // The test's events pass: unknown events allowed, a high cap, rate limits far above what a test sends.
  const [script, worker, served] = await Promise.all([bundlePage(), bundleWorker(), startServedStack({ policy: ROOMY_POLICY })]);
  const { emulator, relay, admin } = served;
  const scripts = new Map(
    await Promise.all(
      Object.entries(pages).map(async ([name, entry]) => [name, await (typeof entry === 'string' ? browserBundle(entry) : entry())] as const),
    ),
  );
  const awards: ProxiedAward[] = [];
  const proxyEvents = new EventEmitter();
  /** Which tab and page load each token was issued to (the e-mail claim makes every token distinct). */
  const tokenOwners = new Map<string, { tab: string; instance: string }>();
  const tokenRequests: Stack['tokenRequests'] = [];
  /** Values of `refuse` already answered with a bad token: each is refused once. */
  const refused = new Set<string>();
  let blocked = false;
  let dropped = 0;
  const droppedTabs = new Set<string>();
  let keptLoads: ((instance: string) => boolean) | undefined;
  let outage: { until: number; status: number; retryAfterSeconds: number } | undefined;

  // Same-origin gateway: the relay's answer goes back as is. A page that goes away does not abort the request
  // upstream, so an award in flight at a reload is still applied: its acknowledgement is what gets lost.
  async function proxy(req: IncomingMessage, res: ServerResponse, path: string) {
    const body = await readBody(req);
    const owner = tokenOwners.get(String(req.headers.authorization ?? '').replace(/^Bearer /, '')) ?? { tab: '?', instance: '?' };
    if (droppedTabs.has(owner.tab) || (keptLoads && !keptLoads(owner.instance))) {
      dropped++;
      req.socket.destroy();
      return;
    }
    const entry: ProxiedAward | undefined =
      req.method === 'POST' && isAwardPath(path.split('?')[0]!)
        ? { ...owner, path, keys: keysOf(path, body, req), start: performance.now() }
        : undefined;
    if (entry) {
      awards.push(entry);
      proxyEvents.emit('start', entry);
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'idempotency-key', 'idempotency_key', 'x-request-id'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    let status = 502;
    let answer: Buffer = Buffer.from(JSON.stringify({ success: false, message: 'relay unreachable' }));
    const answerHeaders: Record<string, string> = { 'content-type': 'application/json' };
    try {
      const response = await fetch(`${relay.url}${path}`, { method: req.method, headers, body: body.length ? new Uint8Array(body) : undefined });
      status = response.status;
      answer = Buffer.from(await response.arrayBuffer());
      for (const name of ['content-type', 'retry-after', 'www-authenticate', 'idempotent-replayed'])
        if (response.headers.has(name)) answerHeaders[name] = response.headers.get(name)!;
    } catch {}
    res.on('error', () => {});
    res.writeHead(status, answerHeaders);
    const ended = (answered: ProxiedAward, endStatus: number) => {
      answered.end = performance.now();
      answered.status = endStatus;
      proxyEvents.emit('end', answered);
    };
    res.end(answer, () => {
      if (entry) ended(entry, status);
    });
    // end's callback does not run when the page went away first.
    res.on('close', () => {
      if (entry && entry.end === undefined) ended(entry, 0);
    });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    // A game framed in a sandbox without allow-same-origin has an opaque origin: its module script, token and relay
    // requests are cross-origin (Origin: null), as they are for a portal's sandboxed frame in production.
    if (req.headers.origin === 'null') {
      res.setHeader('access-control-allow-origin', 'null');
      res.setHeader('access-control-allow-headers', 'authorization, content-type, idempotency-key, x-request-id');
      res.setHeader('access-control-allow-methods', 'GET, POST');
      if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    }
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(text);
    };
    if (url.pathname.startsWith('/api/') && blocked) {
      dropped++;
      req.socket.destroy();
      return;
    }
    if (url.pathname.startsWith('/api/')) return void proxy(req, res, url.pathname.slice(4) + url.search);
    if (url.pathname === '/sdk.html') return send(200, 'text/html', PAGE_HTML);
    if (url.pathname === '/sdk-page.js') return send(200, 'text/javascript', script);
    if (url.pathname === '/sw.js') return send(200, 'text/javascript', worker);
    const extra = /^\/([\w-]+)\.(html|js)$/.exec(url.pathname);
    if (extra && scripts.has(extra[1]!))
      return extra[2] === 'html' ? send(200, 'text/html', pageHtml(extra[1]!)) : send(200, 'text/javascript', scripts.get(extra[1]!)!);
    if (url.pathname === '/token') {
      const sub = url.searchParams.get('sub') ?? '';
      const tab = url.searchParams.get('tab') ?? '?';
      const instance = url.searchParams.get('instance') ?? '?';
      const label = `${tab}-${instance}`.replace(/[^\w-]/g, '');
      const at = performance.now();
      // ?status=<n>: this token URL answers n (401: no session), always.
      const forced = Number(url.searchParams.get('status') ?? 200);
      if (forced !== 200) {
        tokenRequests.push({ sub, tab, instance, refused: false, status: forced, at });
        return send(forced, 'application/json', JSON.stringify({ success: false, message: 'no session' }));
      }
      if (outage && at < outage.until) {
        tokenRequests.push({ sub, tab, instance, refused: false, status: outage.status, at });
        res.writeHead(outage.status, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          'retry-after': String(outage.retryAfterSeconds),
        });
        return void res.end(JSON.stringify({ success: false, message: 'login route unavailable' }));
      }
      // ?refuse=<id>: the first token of that id is one the relay refuses (401).
      const refuse = url.searchParams.get('refuse');
      if (refuse && !refused.has(refuse)) {
        refused.add(refuse);
        tokenRequests.push({ sub, tab, instance, refused: true, at });
        return send(200, 'application/json', JSON.stringify({ token: 'refused.by.the-relay' }));
      }
      tokenRequests.push({ sub, tab, instance, refused: false, at });
      served.token(sub, { email: `${label}@tabs.example` }, { ttl: '10m' }).then(
        (token) => {
          tokenOwners.set(token, { tab, instance });
          send(200, 'application/json', JSON.stringify({ token }));
        },
        (error: Error) => send(400, 'application/json', JSON.stringify({ success: false, message: error.message })),
      );
      return;
    }
    send(404, 'application/json', JSON.stringify({ success: false, message: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchChromium();

  return {
    origin,
    browser,
    emulator,
    awards,
    proxyEvents,
    setFaults: served.setFaults,
    tokenRequests,
    tokenOutage: ({ forMs, status, retryAfterSeconds }) => {
      outage = { until: performance.now() + forMs, status, retryAfterSeconds };
    },
    blockApi: (value) => {
      blocked = value;
    },
    dropTab: (tab) => void droppedTabs.add(tab),
    dropLoadsBut: (except) => {
      keptLoads = except;
    },
    undropTabs: () => {
      droppedTabs.clear();
      keptLoads = undefined;
    },
    dropped: () => dropped,
    serviceRequests: () => admin('GET', 'requests'),
    async ledgerOf(serviceUserId) {
      const state = (await admin('GET', 'state')) as { ledger: LedgerEntry[] };
      return state.ledger.filter((entry) => entry.serviceUserId === serviceUserId);
    },
    async close() {
      await browser.close().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await served.close();
    },
  };
}

/**
 * Starts the stack before the file's tests and stops it (browser included) after them. The returned function runs
 * one test in a fresh browser context, with emulator faults if given; context, faults and blocking end with it.
 */
export function setupBrowserStack(pages: ExtraPages = {}) {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(pages);
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });
  return async function inContext(run: (stack: Stack, context: BrowserContext) => Promise<void>, faults?: FaultConfig): Promise<void> {
    const context = await stack!.browser.newContext();
    try {
      if (faults) await stack!.setFaults(faults);
      await run(stack!, context);
    } finally {
      stack!.blockApi(false);
      stack!.undropTabs();
      stack!.tokenOutage({ forMs: 0, status: 503, retryAfterSeconds: 0 });
      if (faults) await stack!.setFaults({});
      await context.close();
    }
  };
}

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught exceptions, except failed requests declared expected (pattern on "<message> (<url>)"). */
  errors: string[];
  expectNetworkErrors(pattern: RegExp): void;
  /** Runs fn(window.sdkPage, arg) in the page. */
  sdk<R, A = undefined>(fn: (page: SdkPage, arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  /** Waits until the page (after a load or reload) has its SDK on window. */
  ready(): Promise<void>;
}

export interface PageOptions {
  sub: string;
  tab?: string;
  storage?: string;
  backoffBase?: number;
  backoffMax?: number;
  poll?: number;
  /** The SDK's backgroundSync option. */
  backgroundSync?: boolean;
}

/** Opens the test page (`path`: another build of it, an ExtraPages one) in `context` and collects its errors. */
export async function openSdkPage(stack: Stack, context: BrowserContext, options: PageOptions, path = '/sdk.html'): Promise<OpenedPage> {
  const page = await context.newPage();
  const errors: string[] = [];
  const expected: RegExp[] = [];
  // Chromium logs every failed or non-2xx request as a console error naming the URL: only those a test provokes
  // on purpose are allowed; a pattern is matched against "<message> (<url>)".
  const describe = (message: ConsoleMessage) => `${message.text()} (${message.location().url})`;
  const isExpected = (message: ConsoleMessage) =>
    message.text().startsWith('Failed to load resource') && expected.some((pattern) => pattern.test(describe(message)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !isExpected(message)) errors.push(describe(message));
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  const query = new URLSearchParams(Object.entries(options).map(([k, v]) => [k, String(v)]));
  const ready = () => page.waitForFunction(() => 'sdkPage' in window, undefined, { timeout: 10_000 }).then(() => {});
  await page.goto(`${stack.origin}${path}?${query}`);
  await ready();
  return {
    page,
    errors,
    expectNetworkErrors: (pattern) => void expected.push(pattern),
    sdk: (fn, arg) =>
      page.evaluate(
        ([source, a]) => new Function('page', 'arg', `return (${source})(page, arg)`)((window as unknown as { sdkPage: SdkPage }).sdkPage, a),
        [fn.toString(), arg] as const,
      ),
    ready,
  };
}

/** Resolves with the first award request the proxy sees for which `match` holds (already seen ones included). */
export function nextAward(stack: Stack, match: (entry: ProxiedAward) => boolean, timeoutMs = 10_000): Promise<ProxiedAward> {
  const seen = stack.awards.find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stack.proxyEvents.off('start', onStart);
      reject(new Error('no such award request reached the proxy'));
    }, timeoutMs);
    const onStart = (entry: ProxiedAward) => {
      if (!match(entry)) return;
      clearTimeout(timer);
      stack.proxyEvents.off('start', onStart);
      resolve(entry);
    };
    stack.proxyEvents.on('start', onStart);
  });
}

/**
 * The verdict: the emulator's ledger holds each issued key exactly once with its points, and nothing else for this
 * user.
 */
export async function expectExactlyOnce(stack: Stack, serviceUserId: string, issued: Map<string, number>) {
  // The relay scopes keys per player: the ledger holds the key the service saw for each of the page's keys.
  const ledger = await stack.ledgerOf(serviceUserId);
  const byKey = new Map<string, number[]>();
  for (const entry of ledger) {
    const key = entry.idempotencyKey?.toLowerCase() ?? 'null';
    byKey.set(key, [...(byKey.get(key) ?? []), entry.eventPoints]);
  }
  const expected = new Map([...issued].map(([key, points]) => [serviceKey(serviceUserId, key), [points]]));
  expect(Object.fromEntries(byKey)).toEqual(Object.fromEntries(expected));
  return ledger;
}

/** The idempotency key the service sees for a page's key: the relay derives one per player (docs/relay.md). */
export const serviceKey = upstreamKey;

export const uniqueId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/** Polls until fn() is truthy (the SDK's work is asynchronous: flushes, channel messages, IndexedDB). */
export { until } from '../helpers/until.js';
