import { decodeJwt, errors, jwtVerify, SignJWT, type CryptoKey } from 'jose';
import { ConfigError } from '../kit/errors.js';
import * as v from 'valibot';
import { formatIssues } from '../protocol/index.js';
import { PlayerClaimsSchema, type PlayerClaims, type VerifiedClaims } from './claims.js';

/** The only algorithm the relay signs and accepts: a token with any other `alg` (`none` included) is refused. */
export const TOKEN_ALGORITHM = 'HS256';
/** HS256 with a short secret can be brute-forced offline from one token. */
export const SECRET_MIN_LENGTH = 32;
/** signPlayerToken's lifetime when no `ttl` is given: a token mint is cheap, a leaked token lives briefly. */
export const DEFAULT_TOKEN_TTL = '15m';
/** The longest lifetime (exp - iat) the relay accepts by default: a leaked token dies within the hour. */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 3600;
/** How far a token's `iat` may lie in the future (the signer's clock ahead of the relay's). */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** One token secret, or a list during a rotation: the first signs, every one verifies. */
export type TokenSecrets = string | readonly string[];

/** How signPlayerToken signs: with which secret, for how long. */
export interface SignOptions {
  /** The relay's `secret`: a list signs with its first (the current) secret. */
  secret: TokenSecrets;
  /** '15m', '2h', '30s' (jose time span) or a number of seconds; default '15m'. At most maxTokenAgeSeconds. */
  ttl?: string | number;
  /** The relay's `maxTokenAgeSeconds`; default 3600. A longer ttl is refused with a RangeError. */
  maxTokenAgeSeconds?: number;
}

export interface TokenLimits {
  /** Longest lifetime (exp - iat) accepted; default 3600. */
  maxTokenAgeSeconds?: number;
}

export function checkMaxTokenAge(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_TOKEN_AGE_SECONDS;
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError('maxTokenAgeSeconds', 'invalid', `maxTokenAgeSeconds must be a positive integer, got ${value}`);
  }
  return value;
}

export function secretKey(secret: string | undefined): Uint8Array<ArrayBuffer> {
  if (!secret) throw new ConfigError('secret', 'missing', 'relay secret is required: pass `secret` or set QP_RELAY_SECRET');
  if (secret.length < SECRET_MIN_LENGTH) {
    throw new ConfigError('secret', 'invalid', `relay secret must be at least ${SECRET_MIN_LENGTH} characters (QP_RELAY_SECRET)`);
  }
  return new TextEncoder().encode(secret);
}

/** Every configured token secret, checked, duplicates dropped, the current (signing) one first. */
export function tokenSecrets(secrets: TokenSecrets | undefined): string[] {
  const list = typeof secrets === 'string' || secrets === undefined ? [secrets] : [...secrets];
  if (list.length === 0) list.push(undefined);
  for (const secret of list) secretKey(secret);
  return [...new Set(list as string[])];
}

/** Sign a short-lived player token (JWT, HS256) for the relay. */
export async function signPlayerToken(claims: PlayerClaims, options: SignOptions): Promise<string> {
  const checked = v.safeParse(PlayerClaimsSchema, claims);
  if (!checked.success) throw new TypeError(`token claims: ${formatIssues(checked.issues)}`);
  const { sub, ...rest } = checked.output;
  const ttl = options.ttl ?? DEFAULT_TOKEN_TTL;
  const now = Math.floor(Date.now() / 1000);
  // jose reads a number as an absolute time; the relay's ttl number means seconds from now.
  const exp = typeof ttl === 'number' ? now + ttl : ttl;
  const maxAge = checkMaxTokenAge(options.maxTokenAgeSeconds);
  // exp first, iat read after it: jose resolves a ttl like '1h' against its own clock, and an iat taken before that
  // could fall a second earlier (exp - iat = 3601 s, refused by a relay whose maximum is 3600 s).
  const token = await new SignJWT(rest)
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
    .setSubject(sub)
    .setExpirationTime(exp)
    .setIssuedAt(Math.floor(Date.now() / 1000))
    .sign(secretKey(tokenSecrets(options.secret)[0]));
  // Checked on what was signed: jose parses the time span, and the relay would refuse anything longer anyway.
  const { exp: signedExp, iat: signedIat } = decodeJwt(token);
  if (signedExp === undefined || signedIat === undefined || signedExp - signedIat > maxAge) {
    throw new RangeError(`ttl ${JSON.stringify(ttl)} is longer than maxTokenAgeSeconds ${maxAge}: the relay would refuse the token`);
  }
  return token;
}

/** Imported once: jose would otherwise import a raw key on every verification (about half its cost). */
export function verificationKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** `unavailable`: the verdict could not be reached (the identity provider is away), not a bad token: 503, not 401. */
export type TokenCheck = { ok: true; claims: VerifiedClaims; exp: number } | { ok: false; message: string; unavailable?: true };

/** The claims every token must carry, whoever signed it. */
export const REQUIRED_CLAIMS = ['sub', 'exp', 'iat'];

/**
 * Verify signature, algorithm, expiry and lifetime (iat and exp required, exp - iat at most maxTokenAgeSeconds,
 * iat not in the future), then the claims' shape. With several keys (a rotation's overlap) a signature that fails
 * under one is tried under the next. Messages never include the token.
 */
export async function verifyPlayerToken(
  token: string,
  keys: Uint8Array | CryptoKey | readonly (Uint8Array | CryptoKey)[],
  limits: TokenLimits = {},
): Promise<TokenCheck> {
  const options = { algorithms: [TOKEN_ALGORITHM], requiredClaims: REQUIRED_CLAIMS };
  let failure: unknown;
  for (const key of Array.isArray(keys) ? keys : [keys]) {
    try {
      const { payload } = await jwtVerify(token, key, options);
      return checkVerifiedPayload(payload, limits);
    } catch (error) {
      failure = error;
      // Only a signature failure may be another key's token; anything else is the token's own fault.
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) break;
    }
  }
  return { ok: false, message: tokenErrorMessage(failure) };
}

/** What every verified payload must also meet (lifetime, iat, claims' shape), whichever key verified it. */
export function checkVerifiedPayload(
  payload: Record<string, unknown>,
  limits: TokenLimits,
  toClaims: (payload: Record<string, unknown>) => unknown = (p) => p,
): TokenCheck {
  const maxAge = limits.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS;
  const { iat, exp } = payload as { iat: number; exp: number };
  if (iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) return { ok: false, message: 'token claim iat invalid: in the future' };
  if (exp - iat > maxAge) {
    return { ok: false, message: `token lifetime (exp - iat) must be at most ${maxAge} s (the relay's maxTokenAgeSeconds)` };
  }
  const mapped = toClaims(payload);
  if (mapped === null || mapped === undefined) return { ok: false, message: 'token not accepted: claims() returned no player' };
  const checked = v.safeParse(PlayerClaimsSchema, mapped);
  if (!checked.success) return { ok: false, message: `token claim ${formatIssues(checked.issues)}` };
  return { ok: true, claims: checked.output, exp };
}

export function tokenErrorMessage(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JOSEAlgNotAllowed) return `token algorithm not allowed (only ${TOKEN_ALGORITHM})`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature invalid';
  if (error instanceof errors.JWTClaimValidationFailed) {
    // jose's reason is a code ('missing', 'check_failed'); for a failed check its message says what was expected.
    return `token claim ${error.claim} invalid: ${error.reason === 'check_failed' ? error.message : error.reason}`;
  }
  return 'token malformed';
}
