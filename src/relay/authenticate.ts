import type { MiddlewareHandler } from 'hono';
import type { CryptoKey } from 'jose';
import * as v from 'valibot';
import { formatIssues } from '../protocol/index.js';
import { PlayerClaimsSchema, type PlayerClaims } from './claims.js';
import type { RelayEnv } from './context.js';
import { fail } from './respond.js';
import { checkMaxTokenAge, secretKey, verificationKey, verifyPlayerToken } from './token.js';

export type Authenticate = (request: Request) => Promise<PlayerClaims | null>;

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/;

/**
 * Who is calling: a JWT from `Authorization: Bearer` (HS256, the relay's secret) or, when the operator
 * has its own sessions, its `authenticate(request)`. Failures are 401 and never echo the token.
 */
export function authentication(options: {
  secret?: string | undefined;
  authenticate?: Authenticate | undefined;
  maxTokenAgeSeconds?: number | undefined;
}): MiddlewareHandler<RelayEnv> {
  const custom = options.authenticate;
  // Checked once at startup so a relay with a missing or weak secret never starts.
  const key = custom ? undefined : secretKey(options.secret);
  const limits = { maxTokenAgeSeconds: checkMaxTokenAge(options.maxTokenAgeSeconds) };
  let verifier: Promise<CryptoKey> | undefined;
  const unauthorized = (c: Parameters<MiddlewareHandler<RelayEnv>>[0], message: string) => {
    c.header('WWW-Authenticate', 'Bearer realm="quest-points"');
    return fail(c, { status: 401, message });
  };

  return async (c, next) => {
    if (custom) {
      const claims = await custom(c.req.raw);
      if (!claims) return unauthorized(c, 'authentication required');
      const checked = v.safeParse(PlayerClaimsSchema, claims);
      if (!checked.success) throw new Error(`authenticate() returned invalid claims: ${formatIssues(checked.issues)}`);
      c.set('claims', checked.output);
      return next();
    }
    const header = c.req.header('authorization');
    if (!header) return unauthorized(c, 'Authorization header is required: "Bearer <token>"');
    const match = BEARER.exec(header);
    if (!match?.[1]) return unauthorized(c, 'Authorization header must be "Bearer <token>"');
    c.set('token', match[1]);
    verifier ??= verificationKey(key!);
    const verified = await verifyPlayerToken(match[1], await verifier, limits);
    if (!verified.ok) return unauthorized(c, verified.message);
    c.set('claims', verified.claims);
    return next();
  };
}
