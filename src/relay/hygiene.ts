import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { ConfigError } from '../kit/errors.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER, REQUEST_ID_HEADER } from '../protocol/index.js';
import type { RelayContext, RelayEnv } from './context.js';
import { fail } from './respond.js';

type Middleware = MiddlewareHandler<RelayEnv>;

/**
 * Exact-origin CORS. A request that carries an Origin outside the allowlist is refused outright (403), not
 * merely left without CORS headers, so a page elsewhere cannot even trigger a "simple" request. Requests
 * without Origin (servers, curl) and same-origin requests pass.
 */
export function originPolicy(allowlist: readonly string[]): Middleware[] {
  const allowed = new Set(allowlist.map(normaliseOrigin));
  const isAllowed = (origin: string, c: RelayContext) => allowed.has(origin) || origin === new URL(c.req.url).origin;
  const gate: Middleware = async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !isAllowed(origin, c)) {
      return fail(c, { status: 403, message: `origin ${JSON.stringify(origin)} is not in the relay's CORS allowlist (corsOrigins)` });
    }
    await next();
  };
  const exposed = ['Retry-After', REQUEST_ID_HEADER];
  const preflight = cors({
    origin: (origin, c) => (isAllowed(origin, c) ? origin : null),
    allowMethods: ['GET', 'POST'],
    allowHeaders: ['Authorization', 'Content-Type', IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER, REQUEST_ID_HEADER],
    exposeHeaders: exposed,
    maxAge: 600,
  });
  // The same headers hono's cors gives an actual request, set before the route answers (Hono's prepared headers):
  // hono's cors sets them on c.res first, so every answer became a second Response copied from a placeholder
  // (a WHATWG Response and a web stream per request on Node). Preflights stay with hono's cors.
  const headers: Middleware = async (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    const origin = c.req.header('origin');
    if (origin !== undefined) c.header('Access-Control-Allow-Origin', origin);
    c.header('Access-Control-Expose-Headers', exposed.join(','));
    c.header('Vary', 'Origin');
    await next();
  };
  return [gate, headers];
}

function normaliseOrigin(origin: string): string {
  const url = new URL(origin);
  if (url.origin === 'null' || url.origin !== origin.replace(/\/$/, '')) {
    throw new ConfigError(
      'corsOrigins',
      'invalid',
      `corsOrigins: ${JSON.stringify(origin)} must be an exact origin such as https://game.example.com`,
    );
  }
  return url.origin;
}

/** Hono's secure headers, and no caching of anything a player token unlocked. */
export const securityHeaders: Middleware[] = [
  secureHeaders({ crossOriginResourcePolicy: 'same-site' }),
  async (c, next) => {
    await next();
    // On the answer's own headers: c.header() after the route answered rebuilds the Response from its body (a
    // WHATWG Response and web stream per request on Node).
    c.res.headers.set('Cache-Control', 'no-store');
  },
];

/**
 * A body declared over maxSize bytes -> 413 before anything else; one sent without a length is counted as it is read
 * (readJson with the same limit). Not hono's bodyLimit: to see whether there is a body it reads `request.body`,
 * which on Node makes @hono/node-server build a whole WHATWG Request and web stream for every request.
 */
export const limitBody =
  (maxSize: number): Middleware =>
  async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > maxSize) return fail(c, { status: 413, message: `body must be at most ${maxSize} bytes` });
    await next();
  };

/** Bodies are JSON only: anything else -> 415 before it is read. */
export const requireJson: Middleware = async (c, next) => {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return fail(c, { status: 415, message: 'Content-Type must be application/json' });
  }
  await next();
};
