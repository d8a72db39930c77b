import type { IncomingMessage } from 'node:http';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { errorResponse } from '../kit/index.js';
import { REQUEST_ID_HEADER } from '../protocol/index.js';
import type { createEmulator } from '../emulator/index.js';
import type { createRelay } from '../relay/index.js';
import { hostOfHeader, isLoopbackAddress, isLoopbackHost, isLoopbackOrigin } from '../kit/loopback.js';
import { createDevStack, DEV_PATHS, type DevStackOptions } from './stack.js';
import type { DevTokenClaims } from './token.js';

export { DEV_PATHS };
/** Every prefix the dev server answers; anything else is left to the host server (Vite). */
export const DEV_PREFIXES = ['/api', '/__emulator', '/__dev'] as const;
/** Prefixes only a client on this machine may call (the relay under /api has its own tokens). */
const LOOPBACK_ONLY = ['/__emulator', '/__dev'] as const;

/** The stack's options (createDevStack), with its secrets always random: they never leave this process. */
export type DevServerOptions = Omit<DevStackOptions, 'secrets'>;

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

const fail = errorResponse;

/**
 * One emulator (admin routes on) behind one relay whose upstream is the emulator in-process (createDevStack), with
 * the loopback guards in front: no extra port, and the API key, relay secret and key secret are random per process,
 * held only here (the emulator's ledger lives as long as they do).
 */
export function createDevServer(options: DevServerOptions = {}): DevServer {
  const stack = createDevStack<DevBindings>(options);
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

  app.all('*', (c) => stack.app.fetch(c.req.raw, c.env));

  return {
    fetch: (request, env = {}) => Promise.resolve(app.fetch(request, env)),
    emulator: stack.emulator,
    get relay() {
      return stack.relay;
    },
    mintToken: stack.mintToken,
  };
}
