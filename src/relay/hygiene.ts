import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { ConfigError } from '../kit/errors.js';
import { bodyRefusal, readJsonBody } from '../kit/http.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER, REQUEST_ID_HEADER } from '../protocol/index.js';
import { answerHeader, requestHeader, type RelayEnv, type StepContext, type StepMiddleware } from './context.js';
import { isOwnOrigin, type ProxyTrust } from './origin.js';
import type { Refusal } from './policy.js';
import { fail } from './respond.js';
import { earlyRefusal } from './validate.js';

type Middleware = MiddlewareHandler<RelayEnv>;

/** The CORS policy as the relay's guard middleware runs it (app.ts). */
export interface OriginPolicy {
  /** 403 for a request whose Origin is outside the allowlist (preflights included). */
  refusal(c: StepContext<unknown>): Refusal | undefined;
  /** An OPTIONS request: hono's cors answers a preflight, anything else goes on to `next`. */
  preflight: Middleware;
  /** The CORS headers of an actual request, set before the route answers. */
  headers(c: StepContext<unknown>): void;
}

/**
 * Exact-origin CORS. A request that carries an Origin outside the allowlist is refused outright (403), not
 * merely left without CORS headers, so a page elsewhere cannot even trigger a "simple" request. Requests
 * without Origin (servers, curl) and same-origin requests (origin.ts: Sec-Fetch-Site, or the relay's own origin as
 * its trusted proxies forward it) pass.
 */
export function originPolicy(allowlist: readonly string[], trust: ProxyTrust): OriginPolicy {
  const allowed = new Set(allowlist.map(normaliseOrigin));
  const isAllowed = (origin: string, c: StepContext<unknown>) => allowed.has(origin) || isOwnOrigin(c, origin, trust);
  const exposed = ['Retry-After', REQUEST_ID_HEADER].join(',');
  return {
    refusal(c) {
      const origin = requestHeader(c, 'origin');
      if (origin === undefined || isAllowed(origin, c)) return undefined;
      return { status: 403, message: `origin ${JSON.stringify(origin)} is not in the relay's CORS allowlist (corsOrigins)`, code: 'origin' };
    },
    preflight: cors({
      origin: (origin, c) => (isAllowed(origin, c) ? origin : null),
      allowMethods: ['GET', 'POST'],
      allowHeaders: ['Authorization', 'Content-Type', IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER, REQUEST_ID_HEADER],
      exposeHeaders: exposed.split(','),
      maxAge: 600,
    }),
    // The same headers hono's cors gives an actual request, set before the route answers (Hono's prepared headers):
    // hono's cors sets them on c.res first, so every answer became a second Response copied from a placeholder
    // (a WHATWG Response and a web stream per request on Node). Preflights stay with hono's cors.
    headers(c) {
      const origin = requestHeader(c, 'origin');
      if (origin !== undefined) answerHeader(c, 'Access-Control-Allow-Origin', origin);
      answerHeader(c, 'Access-Control-Expose-Headers', exposed);
      answerHeader(c, 'Vary', 'Origin');
    },
  };
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

/**
 * Hono's secureHeaders defaults (Cross-Origin-Resource-Policy same-site), and no caching of anything a player token
 * unlocked. Fixed values, set before the route answers (into Hono's prepared headers): hono's secureHeaders sets them
 * on the finished answer, which on Node rebuilds it as a WHATWG Response with a web stream, on every request.
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['Cross-Origin-Resource-Policy', 'same-site'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
  ['Cache-Control', 'no-store'],
];

/**
 * A route's JSON body, its one limit: the kit's checks before reading (a JSON content type: 400; a declared length
 * over maxBytes: 413), then read (counted while streaming when no length was declared) and parsed (400), left in
 * `c.var.json`. Not hono's bodyLimit: to see whether there is a body it reads `request.body`, which on Node makes
 * @hono/node-server build a whole WHATWG Request and web stream for every request.
 */
export const jsonBody =
  (maxBytes: number): StepMiddleware =>
  async (c, next) => {
    const length = requestHeader(c, 'content-length');
    const refused = bodyRefusal(requestHeader(c, 'content-type'), length, maxBytes);
    if (refused) return fail(c, earlyRefusal(refused));
    const read = await readJsonBody(c.req.raw, { maxBytes, contentLength: length ?? null });
    if (!read.ok) return fail(c, earlyRefusal(read));
    c.set('json', read.value);
    await next();
  };
