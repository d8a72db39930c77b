import type { MiddlewareHandler } from 'hono';
import { decodeProtectedHeader, type CryptoKey } from 'jose';
import * as v from 'valibot';
import { ConfigError } from '../kit/errors.js';
import { formatIssues } from '../protocol/index.js';
import { PlayerClaimsSchema, type PlayerClaims } from './claims.js';
import { requestHeader, type RelayEnv, type StepContext, type StepMiddleware } from './context.js';
import { createJwksVerifier, type JwksOptions } from './jwks.js';
import { checkKeySecret, createKeyScope } from './keys.js';
import { fail } from './respond.js';
import { checkTokenCacheSize, createTokenCache, type TokenCache } from './token-cache.js';
import {
  checkMaxTokenAge,
  secretKey,
  TOKEN_ALGORITHM,
  tokenSecrets,
  verificationKey,
  verifyPlayerToken,
  type TokenCheck,
  type TokenSecrets,
} from './token.js';

/**
 * The operator's own authentication (RelayOptions `authenticate`), in place of player tokens: the caller's claims
 * from the request (a session cookie, say), or null for 401. The claims are checked like a token's.
 */
export type Authenticate = (request: Request) => Promise<PlayerClaims | null>;

/** Who may call the relay, and the secret naming its upstream keys (RelayOptions). */
export interface AuthOptions {
  /**
   * HS256 secret for player tokens, at least 32 characters, or a list during a rotation: the first signs
   * (signPlayerToken), every one verifies. Default QP_RELAY_SECRET, then QP_RELAY_SECRET_PREVIOUS when set.
   */
  secret?: TokenSecrets;
  /**
   * Names the upstream idempotency keys; never rotates (a changed one would apply a resent award twice). Required,
   * at least 32 characters; default QP_KEY_SECRET. Upgrading: your current QP_RELAY_SECRET keeps every upstream key.
   */
  keySecret?: string;
  /** Tokens from the game's identity provider; default from QP_JWKS_URL, QP_JWT_ISSUER, QP_JWT_AUDIENCE. */
  jwks?: JwksOptions;
  /** Longest token lifetime (exp - iat) accepted, in seconds; default 3600 (QP_MAX_TOKEN_AGE). */
  maxTokenAgeSeconds?: number;
  /** Replaces token auth: resolve the caller's claims from the operator's own session, or null (401). */
  authenticate?: Authenticate;
  /** Verified tokens remembered (bounded, second chance; each until its exp) so repeated requests skip the signature check; default 10000, 0 = off. */
  tokenCacheSize?: number;
}

export interface RelayAuth {
  /** 401 for a missing or bad token, 503 when the identity provider's keys cannot be had; sets `claims`. */
  middleware: MiddlewareHandler<RelayEnv>;
  /**
   * The same, as a step the Node fast path can run (it reads only a StepContext): the bearer token's check. Absent with
   * the operator's authenticate(), which is handed a whole Request.
   */
  step?: StepMiddleware;
  /** The upstream idempotency key of a player's client key (keys.ts), under the key secret. */
  upstreamKey: (sub: string, clientKey: string) => string;
  /** Token secrets and key secret: masked in anything the relay writes. */
  secrets: string[];
  tokenCache: TokenCache;
}

type Env = Record<string, string | undefined>;
// RFC 7235: the scheme is a case-insensitive token (`bearer`, `BEARER`); the token68 after it is taken as sent.
const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i;
/** The provider's keys were unreachable: players retry shortly, as after any 503. */
const PROVIDER_RETRY_AFTER_SECONDS = 5;

/**
 * Who is calling: a JWT from `Authorization: Bearer` (HS256 under the relay's secrets, or signed by the identity
 * provider's JWKS, picked by the token's `alg`) or, when the operator has its own sessions, its
 * `authenticate(request)`. Everything is checked here, once, so a misconfigured relay never starts.
 */
export function createAuth(options: AuthOptions, env: Env, apiKey: string | undefined): RelayAuth {
  const keySecret = checkKeySecret(options.keySecret ?? env.QP_KEY_SECRET, apiKey);
  const maxTokenAgeSeconds = checkMaxTokenAge(options.maxTokenAgeSeconds);
  const secretValues = envSecrets(options.secret, env);
  const jwksOptions = options.jwks ?? envJwks(env);
  const custom = options.authenticate;
  if (!custom && secretValues === undefined && !jwksOptions) {
    throw new ConfigError('secret', 'missing', 'relay secret is required: pass `secret` or set QP_RELAY_SECRET (or a JWKS: `jwks` or QP_JWKS_URL)');
  }
  // With the operator's own authenticate() no token is verified; a secret given anyway is only masked.
  const secrets = custom ? [...new Set(toList(secretValues))] : secretValues === undefined ? [] : tokenSecrets(secretValues);
  const jwks = !custom && jwksOptions ? createJwksVerifier(jwksOptions, { maxTokenAgeSeconds }) : undefined;
  const tokenCache = createTokenCache(checkTokenCacheSize(options.tokenCacheSize), maxTokenAgeSeconds);
  const scope = { upstreamKey: createKeyScope(keySecret), secrets: [...secrets, keySecret], tokenCache };
  if (custom) return { middleware: sessionAuth(custom), ...scope };
  const step = bearerAuth(tokenVerifier(secrets, jwks, tokenCache, maxTokenAgeSeconds));
  return { middleware: step, step, ...scope };
}

function unauthorized<A>(c: StepContext<A>, message: string): A {
  c.header('WWW-Authenticate', 'Bearer realm="quest-points"');
  return fail(c, { status: 401, message });
}

/** The operator's own sessions: its claims are validated like a token's; invalid ones are its bug (500), not the caller's. */
function sessionAuth(custom: Authenticate): MiddlewareHandler<RelayEnv> {
  return async (c, next) => {
    const claims = await custom(c.req.raw);
    if (!claims) return unauthorized(c, 'authentication required');
    const checked = v.safeParse(PlayerClaimsSchema, claims);
    if (!checked.success) throw new Error(`authenticate() returned invalid claims: ${formatIssues(checked.issues)}`);
    c.set('claims', checked.output);
    return next();
  };
}

/** `Authorization: Bearer <token>`, verified; failures are 401 (503 when the provider's keys cannot be had) and never echo the token. */
function bearerAuth(verify: (token: string) => TokenCheck | Promise<TokenCheck>): StepMiddleware {
  return async (c, next) => {
    const header = requestHeader(c, 'authorization');
    if (!header) return unauthorized(c, 'Authorization header is required: "Bearer <token>"');
    const match = BEARER.exec(header);
    if (!match?.[1]) return unauthorized(c, 'Authorization header must be "Bearer <token>"');
    c.set('token', match[1]);
    // A token in the cache is answered at once: no promise and no await for the common case.
    const checked = verify(match[1]);
    const verified = checked instanceof Promise ? await checked : checked;
    if (verified.ok) {
      c.set('claims', verified.claims);
      await next();
      return;
    }
    if (verified.unavailable) return fail(c, { status: 503, message: verified.message, retryAfter: PROVIDER_RETRY_AFTER_SECONDS });
    return unauthorized(c, verified.message);
  };
}

/**
 * One verification per token per relay instance: the token's `alg` picks the HS256 secrets or the provider's key set
 * (an HS256 token never meets a public key, so a public key can never serve as an HMAC secret), and a success is
 * remembered until the token's exp.
 */
function tokenVerifier(secrets: string[], jwks: ReturnType<typeof createJwksVerifier> | undefined, cache: TokenCache, maxTokenAgeSeconds: number) {
  // Imported once: jose would otherwise import a raw key on every verification (about half its cost).
  let hmacKeys: Promise<CryptoKey[]> | undefined;
  const accepted = [...(secrets.length > 0 ? [TOKEN_ALGORITHM] : []), ...(jwks?.algorithms ?? [])];
  const uncached = async (token: string): Promise<TokenCheck> => {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return { ok: false, message: 'token malformed' };
    }
    if (alg === TOKEN_ALGORITHM && secrets.length > 0) {
      hmacKeys ??= Promise.all(secrets.map((secret) => verificationKey(secretKey(secret))));
      return verifyPlayerToken(token, await hmacKeys, { maxTokenAgeSeconds });
    }
    if (jwks && typeof alg === 'string' && jwks.algorithms.includes(alg)) return jwks.verify(token);
    return { ok: false, message: `token algorithm not allowed (only ${accepted.join(', ')})` };
  };
  return (token: string): TokenCheck | Promise<TokenCheck> => {
    const key = cache.keyOf(token);
    const cached = cache.get(key);
    if (cached) return { ok: true, claims: cached.claims, exp: cached.exp };
    return cache.verifyOnce(key, async () => {
      const verified = await uncached(token);
      if (verified.ok) cache.set(key, verified.claims, verified.exp);
      return verified;
    });
  };
}

const toList = (secret: TokenSecrets | undefined): string[] => (secret === undefined ? [] : typeof secret === 'string' ? [secret] : [...secret]);

/** `secret` as given, else QP_RELAY_SECRET (current) and QP_RELAY_SECRET_PREVIOUS (still verifying). */
function envSecrets(secret: TokenSecrets | undefined, env: Env): TokenSecrets | undefined {
  if (secret !== undefined) return secret;
  if (env.QP_RELAY_SECRET_PREVIOUS && !env.QP_RELAY_SECRET) {
    throw new ConfigError(
      'QP_RELAY_SECRET',
      'missing',
      'QP_RELAY_SECRET_PREVIOUS is set without QP_RELAY_SECRET: the current secret signs, the previous one only verifies',
    );
  }
  if (!env.QP_RELAY_SECRET) return undefined;
  return env.QP_RELAY_SECRET_PREVIOUS ? [env.QP_RELAY_SECRET, env.QP_RELAY_SECRET_PREVIOUS] : env.QP_RELAY_SECRET;
}

function envJwks(env: Env): JwksOptions | undefined {
  if (!env.QP_JWKS_URL) return undefined;
  const audience = (env.QP_JWT_AUDIENCE ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const single = audience.length === 1 ? audience[0] : undefined;
  return { url: env.QP_JWKS_URL, issuer: env.QP_JWT_ISSUER ?? '', audience: single ?? audience };
}
