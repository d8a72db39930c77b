import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { errorResponse } from '../kit/index.js';
import { REQUEST_ID_HEADER } from '../protocol/index.js';
import { createEmulator, type EmulatorOptions } from '../emulator/index.js';
import { createRelay, signPlayerToken, type RelayOptions, type RelayPolicy } from '../relay/index.js';
import { hostOfHeader, isLoopbackAddress, isLoopbackHost, isLoopbackOrigin } from '../kit/loopback.js';
import { devLogger } from './logger.js';
import { DEV_POLICY } from './policy.js';
import { DEV_TOKEN_TTL_SECONDS, parseDevTokenQuery, type DevTokenClaims } from './token.js';

/** Where each face lives on the dev server (and under Vite's dev server). */
export const DEV_PATHS = { relay: '/api', emulator: '/__emulator', token: '/__dev/token', policy: '/__dev/policy' } as const;
/** Every prefix the dev server answers; anything else is left to the host server (Vite). */
export const DEV_PREFIXES = ['/api', '/__emulator', '/__dev'] as const;
/** Prefixes only a client on this machine may call (the relay under /api has its own tokens). */
const LOOPBACK_ONLY = ['/__emulator', '/__dev'] as const;

export interface DevServerOptions {
  /** Emulator mode at start; switchable at PUT /__emulator/mode. Default 'stateful'. */
  mode?: EmulatorOptions['mode'];
  /** Relay policy; default DEV_POLICY (unknown events allowed, 1000 points per award, generous rate limits). */
  policy?: RelayOptions['policy'];
  /** Relay log records; default devLogger (refusals and errors, one short line each, on stderr). */
  logger?: RelayOptions['logger'];
}

/** What Node adapters (@hono/node-server) pass as the second fetch argument. */
export type DevBindings = { incoming?: IncomingMessage };

export interface DevServer {
  /** Web-standard handler for /api/*, /__emulator/*, /__dev/*; pass the Node bindings for the loopback check. */
  fetch(request: Request, env?: DevBindings): Promise<Response>;
  emulator: ReturnType<typeof createEmulator>;
  /** The relay serving /api now: PUT /__dev/policy replaces it with one under the new policy. */
  readonly relay: ReturnType<typeof createRelay>;
  /** Mint a dev token in-process (tests, scripts) without going through HTTP. */
  mintToken(claims?: Partial<DevTokenClaims>): Promise<string>;
}

function withoutOrigin(request: Request): Request {
  if (!request.headers.has('origin')) return request;
  const headers = new Headers(request.headers);
  headers.delete('origin');
  return new Request(request, { headers });
}

const fail = errorResponse;

/**
 * One emulator (admin routes on) behind one relay whose upstream is the emulator in-process: no extra port,
 * and the API key, relay secret and key secret are random per process, held only here (the emulator's ledger
 * lives as long as they do).
 */
export function createDevServer(options: DevServerOptions = {}): DevServer {
  const apiKey = `dev-${randomUUID()}`;
  const secret = randomBytes(32).toString('base64url');
  const keySecret = randomBytes(32).toString('base64url');
  const emulator = createEmulator({ mode: options.mode ?? 'stateful', admin: true, apiKeys: [apiKey] });
  const relayWith = (policy: NonNullable<RelayOptions['policy']>) =>
    createRelay({
      upstream: { url: 'http://emulator.invalid', apiKey, fetch: (request: Request) => Promise.resolve(emulator.fetch(request)) },
      secret,
      keySecret,
      policy,
      logger: options.logger ?? devLogger,
    });
  // The designer console edits the policy while games run (GET/PUT /__dev/policy): a new relay with the same secrets
  // takes over /api, so tokens and idempotency keys carry on; its rate-limit counters start afresh. Dev only: the
  // production relay's policy is a file or an option, read once.
  let policy = options.policy ?? DEV_POLICY;
  let relay = relayWith(policy);

  const mintToken = (claims: Partial<DevTokenClaims> = {}) =>
    signPlayerToken(
      {
        sub: claims.sub ?? 'dev-player',
        role: claims.role ?? 'player',
        ...(claims.email ? { email: claims.email } : {}),
        ...(claims.wallet ? { wallet: claims.wallet } : {}),
        ...(claims.quests ? { quests: claims.quests } : {}),
      },
      { secret, ttl: DEV_TOKEN_TTL_SECONDS },
    );

  const app = new Hono<{ Bindings: DevBindings }>();

  // DNS rebinding: a page on evil.example re-pointed at 127.0.0.1 would be "same origin" with us,
  // but its requests still carry Host: evil.example.
  app.use('*', async (c, next) => {
    // Behind the Node adapter the URL's host is the Host header; a bare Request has only its URL.
    const host = c.req.header('host');
    if (!isLoopbackHost(new URL(c.req.url).hostname) || (host !== undefined && !isLoopbackHost(hostOfHeader(host))))
      return fail(403, 'Host header must name a loopback host (localhost, 127.0.0.1 or [::1]) in dev mode');
    await next();
  });
  // A game on its own dev server (another port) calls us cross-origin. Dev CORS policy, enforced here for every
  // face: any page served from this machine may call, any other origin is refused outright.
  app.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !isLoopbackOrigin(origin))
      return fail(403, `origin ${JSON.stringify(origin)} is refused: dev mode serves pages from loopback origins only`);
    await next();
  });
  app.use(
    '*',
    cors({ origin: (origin) => (isLoopbackOrigin(origin) ? origin : null), exposeHeaders: ['Retry-After', REQUEST_ID_HEADER], maxAge: 600 }),
  );

  // Token minting and the emulator's admin routes (reset, state, faults) answer this machine only, whatever the bind
  // address: the socket's address, never a header (X-Forwarded-For is whatever the caller wants it to be). No socket
  // at all (app.fetch called directly) is refused too, not assumed local.
  app.use('*', async (c, next) => {
    const path = c.req.path;
    const local = LOOPBACK_ONLY.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    if (local && !isLoopbackAddress(c.env?.incoming?.socket?.remoteAddress)) {
      return fail(403, `${LOOPBACK_ONLY.map((prefix) => `${prefix}/*`).join(' and ')} answer loopback clients only`);
    }
    await next();
  });

  app.get(DEV_PATHS.token, async (c) => {
    const parsed = parseDevTokenQuery(new URL(c.req.url).searchParams);
    if (!parsed.ok) return fail(400, parsed.message);
    const token = await mintToken(parsed.value);
    const { sub, role } = parsed.value;
    // The token-URL format of quest-points/sw (readToken): what the SDK's pages (tokenFrom) and the worker both read.
    return c.json({ token, sub, role, expiresIn: DEV_TOKEN_TTL_SECONDS }, 200, { 'cache-control': 'no-store' });
  });
  app.get(DEV_PATHS.policy, (c) => c.json({ policy: typeof policy === 'string' ? null : policy, file: typeof policy === 'string' ? policy : null }));
  app.put(DEV_PATHS.policy, async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { policy?: unknown } | undefined;
    // An object only: a string would be read as a policy file's path.
    if (!body || typeof body.policy !== 'object' || body.policy === null || Array.isArray(body.policy))
      return fail(400, 'body must be JSON { "policy": { ... } }: the relay policy as an object (docs/relay.md, "Policy")');
    try {
      relay = relayWith(body.policy as RelayPolicy);
    } catch (error) {
      return fail(400, error instanceof Error ? error.message : String(error));
    }
    policy = body.policy as RelayPolicy;
    return c.json({ policy });
  });
  app.all(`${DEV_PATHS.emulator}/*`, (c) => emulator.fetch(c.req.raw, c.env));
  // The Origin was checked above; the relay's own exact-origin allowlist cannot know a game's dev port.
  app.mount(DEV_PATHS.relay, (request, env) => relay.fetch(withoutOrigin(request), env));
  app.notFound(() => fail(404, 'no such dev route: the dev server answers /api/*, /__emulator/*, /__dev/token and /__dev/policy'));
  app.onError((error) => {
    console.error('[quest-points dev]', error);
    return fail(500, 'internal error in the dev server');
  });

  return {
    fetch: (request, env = {}) => Promise.resolve(app.fetch(request, env)),
    emulator,
    get relay() {
      return relay;
    },
    mintToken,
  };
}
