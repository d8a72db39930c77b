import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FaultConfig, RunningEmulator } from '../../src/emulator/index.js';
import type { RelayPolicy } from '../../src/relay/index.js';
import { startStack as startServedStack } from '../helpers/stack.js';
import { createBalancer, type Balancer } from './balancer.js';
import { pageBundle } from './bundle.js';
import type { RelayState } from './fleet.js';
import { operatorStack, type OperatorControls, type OperatorOptions } from './operator-stack.js';
import { SLOTS } from './plan.js';

export const TOKEN_AGE_SECONDS = 6 * 3600;

export const QUEST = 'chaos-quest';
export const AWARD_EVENT = 'chaos_award';
/** The policy refuses this event (422): the only awards the verdict expects in a dead-letter store. */
export const FORBIDDEN_EVENT = 'cheat_code';
export const MAX_POINTS = 10;

export const POLICY: RelayPolicy = {
  quests: [QUEST],
  events: { [AWARD_EVENT]: { maxPoints: MAX_POINTS } },
  allowUnknownEvents: false,
  maxPointsPerAward: MAX_POINTS,
  // No rate limits: the 429s of this run are the service's (fault injection), not the relay's.
  rateLimits: {},
};

/** An award or batch request from a page, seen by the front proxy. */
export interface InFlight {
  slot: string;
  path: string;
  /** The player token it carries. */
  token?: string;
}

export interface StackOptions {
  /** N relay processes (the CLI) on one redis-server behind the balancer, with the operator's chaos. */
  operator?: OperatorOptions;
}

export interface Stack {
  emulator: RunningEmulator;
  /** The page origin: pages, bundles, and /api/s/<slot>/* proxied to the relay. */
  origin: string;
  relayUp(): boolean;
  /** Stops the relay (in-flight requests are cut) and starts it again on the same port after `downMs`. */
  restartRelay(downMs: number): Promise<void>;
  /** Award requests in flight now, per slot. */
  inFlight(): InFlight[];
  /** Emits 'start' (InFlight) for every award request entering the proxy. */
  events: EventEmitter;
  /** What the pages' service worker said of each sync event it answered (pages/worker.ts). */
  workerLog: string[];
  /** Status codes the proxy returned to pages (0: the page went away first). */
  statuses: Map<number, number>;
  /** The balancer: its 5xx by status and cause, and requests per relay. */
  balancer: Balancer;
  /** Set with StackOptions.operator: the relay fleet and Redis the operator's chaos acts on. */
  operator?: OperatorControls;
  /** Emulator admin: the answer's data, as the caller knows it by the route. */
  admin(method: string, path: string, body?: unknown): Promise<unknown>;
  setFaults(faults: FaultConfig): Promise<void>;
  token(sub: string): Promise<string>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
};

const html = (script: string) =>
  `<!doctype html><meta charset="utf-8"><title>chaos</title><body><script type="module" src="/${script}.js"></script></body>`;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  // Set once the relays run: the balancer asks for them per request.
  let ports: () => number[] = () => [];
  let relayState: (port: number) => RelayState = () => 'down';
  const balancer = createBalancer(
    () => ports(),
    (port) => relayState(port),
  );

  const events = new EventEmitter();
  const statuses = new Map<number, number>();
  const live = new Set<InFlight>();
  const workerLog: string[] = [];
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

  function proxy(req: IncomingMessage, res: ServerResponse, slot: string, path: string) {
    const isAward = req.method === 'POST' && (path.startsWith('/batch/points') || /^\/group-quests\/[^/]+\/points$/.test(path));
    const entry: InFlight = { slot, path, token: req.headers.authorization?.replace(/^Bearer /, '') };
    if (isAward) {
      live.add(entry);
      events.emit('start', entry);
    }
    balancer.forward(req, res, path, (status) => {
      live.delete(entry);
      count(status);
    });
  }

  let token: Stack['token'] = () => Promise.reject(new Error('the stack is starting'));
  const front: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    const api = /^\/api\/s\/([\w-]{1,32})(\/.*)$/.exec(url.pathname);
    if (api) return proxy(req, res, api[1]!, api[2]! + url.search);
    if (url.pathname === '/sw.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      return res.end(await pageBundle('worker'));
    }
    if (url.pathname === '/worker-log') {
      workerLog.push(`${new Date().toISOString().slice(11, 23)} ${url.searchParams.get('line') ?? ''}`);
      if (process.env.CHAOS_DEBUG) console.log(`worker: ${url.searchParams.get('line')}`);
      return json(res, 200, { success: true });
    }
    // The service worker's tokenUrl: the player of a storage name (the operator's cookie session, in a game).
    if (url.pathname === '/token') {
      const slot = SLOTS.find((s) => s.storage === url.searchParams.get('storage'));
      if (!slot) return json(res, 404, { success: false, message: 'unknown storage' });
      const body = JSON.stringify({ token: await token(slot.user) });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(body);
    }
    if (url.pathname === '/ours.html' || url.pathname === '/naive.html') {
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
      return res.end(html(url.pathname.slice(1, -5)));
    }
    if (url.pathname === '/ours.js' || url.pathname === '/naive.js') {
      const code = await pageBundle(url.pathname === '/ours.js' ? 'ours' : 'naive');
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' });
      return res.end(code);
    }
    json(res, 404, { success: false, message: 'not found' });
  });
  front.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  if (options.operator) {
    const setToken = (signer: Stack['token']) => {
      token = signer;
    };
    const setRelays = (list: () => number[], state: (port: number) => RelayState) => {
      ports = list;
      relayState = state;
    };
    return operatorStack({ ...options.operator, origin, front, balancer, events, live, workerLog, statuses, setToken, setRelays });
  }
  // The pages' origin is the one browser origin the relay accepts (the operator's corsOrigins).
  const served = await startServedStack({
    policy: POLICY,
    emulatorOptions: { requestLogSize: 5_000_000 },
    relayOptions: {
      corsOrigins: [origin],
      upstream: { retryDelayMs: 50 },
      // One token per tab for the whole run, which may outlast the default hour.
      maxTokenAgeSeconds: TOKEN_AGE_SECONDS,
      // The restart is a crash, not a deploy: requests in flight are cut, not let finish.
      shutdownGraceMs: 1,
    },
  });
  const relayPort = served.relay.port;
  ports = () => [relayPort];
  relayState = () => (served.relayUp() ? 'running' : 'down');
  token = (sub) => served.token(sub, { quests: [QUEST] }, { ttl: TOKEN_AGE_SECONDS, maxTokenAgeSeconds: TOKEN_AGE_SECONDS });

  return {
    emulator: served.emulator,
    origin,
    relayUp: served.relayUp,
    restartRelay: served.restartRelay,
    inFlight: () => [...live],
    events,
    workerLog,
    statuses,
    balancer,
    admin: served.admin,
    setFaults: served.setFaults,
    token,
    async close() {
      await balancer.stop();
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await served.close();
    },
  };
}
