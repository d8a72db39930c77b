import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { ConfigError } from '../kit/errors.js';
import type { PlayerClaims } from './claims.js';
import { checkVerifiedPayload, REQUIRED_CLAIMS, tokenErrorMessage, type TokenCheck, type TokenLimits } from './token.js';

/** Asymmetric algorithms a provider may sign with: a public key can never be mistaken for an HMAC secret. */
export const JWKS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
/** One of JWKS_ALGORITHMS. */
export type JwksAlgorithm = (typeof JWKS_ALGORITHMS)[number];
/** The algorithms accepted when JwksOptions `algorithms` is not given. */
export const DEFAULT_JWKS_ALGORITHMS: readonly JwksAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

/** Tokens signed by the game's identity provider (Auth0, Clerk, Firebase...), verified against its published keys. */
export interface JwksOptions {
  /** The provider's JSON Web Key Set, https (http only on loopback), e.g. https://example.auth0.com/.well-known/jwks.json. */
  url: string;
  /** The `iss` every token must carry (QP_JWT_ISSUER). */
  issuer: string;
  /** The `aud` every token must carry, or one of several (QP_JWT_AUDIENCE). */
  audience: string | string[];
  /** Accepted `alg` values; default RS256, ES256, EdDSA. Asymmetric only. */
  algorithms?: JwksAlgorithm[];
  /**
   * Maps a verified payload to the player, or null (401), for providers whose claims are named otherwise, and the only
   * way a provider's token is an admin's (return `role: 'admin'`). Default (defaultClaims): `sub`, `quests`, `email`,
   * `wallet` as they are; the provider's `role` is not read (every token is a player's), and `email` is dropped when
   * `email_verified` is false.
   */
  claims?: (payload: JWTPayload) => PlayerClaims | null;
  /** A key set fetch gives up after this many ms; default 5000. */
  timeoutMs?: number;
  /** An unknown `kid` refetches the key set at most once per this many ms; default 30000. */
  cooldownMs?: number;
  /** The key set is refetched when older than this many ms; default 600000. */
  cacheMaxAgeMs?: number;
}

export interface JwksVerifier {
  algorithms: readonly string[];
  verify(token: string): Promise<TokenCheck>;
}

/**
 * The default mapping of a provider's verified payload: `sub`, `quests`, `email`, `wallet` as they are, and two
 * things left out on purpose.
 * - `role`: a provider's roles are its own (Firebase custom claims, Auth0 and Keycloak roles, Supabase's
 *   "authenticated" on every token), not the relay's: a user someone made `admin` in the login system would award
 *   any player unlimited. Every token is a player's; an admin comes only from an explicit `claims` mapping.
 * - `email` when `email_verified` is false: an unverified address is not the player's (the relay would let them
 *   identify, and read, its owner's account).
 */
export function defaultClaims(payload: JWTPayload): PlayerClaims {
  const {
    email,
    email_verified: verified,
    role: _role,
    ...rest
  } = payload as JWTPayload & { email?: unknown; email_verified?: unknown; role?: unknown };
  return (verified === false || email === undefined ? rest : { ...rest, email }) as PlayerClaims;
}

export function createJwksVerifier(options: JwksOptions, limits: TokenLimits): JwksVerifier {
  const url = jwksUrl(options.url);
  if (!options.issuer)
    throw new ConfigError(
      'jwks.issuer',
      'missing',
      'jwks.issuer (QP_JWT_ISSUER) is required with a JWKS: tokens of every other issuer must be refused',
    );
  const audience = options.audience;
  if (!audience || (Array.isArray(audience) && audience.length === 0)) {
    throw new ConfigError(
      'jwks.audience',
      'missing',
      'jwks.audience (QP_JWT_AUDIENCE) is required with a JWKS: tokens minted for other apps must be refused',
    );
  }
  const algorithms = [...(options.algorithms ?? DEFAULT_JWKS_ALGORITHMS)];
  const wrong = algorithms.find((alg) => !(JWKS_ALGORITHMS as readonly string[]).includes(alg));
  if (wrong !== undefined || algorithms.length === 0) {
    throw new ConfigError(
      'jwks.algorithms',
      'invalid',
      `jwks.algorithms must be some of ${JWKS_ALGORITHMS.join(', ')}, got ${JSON.stringify(wrong ?? [])}`,
    );
  }
  const keySet = createRemoteJWKSet(url, {
    timeoutDuration: options.timeoutMs ?? 5000,
    cooldownDuration: options.cooldownMs ?? 30_000,
    cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
  });
  const toClaims = options.claims ?? defaultClaims;
  const verifyOptions = { algorithms, issuer: options.issuer, audience, requiredClaims: REQUIRED_CLAIMS };
  return {
    algorithms,
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySet, verifyOptions));
      } catch (error) {
        return jwksFailure(error);
      }
      return checkVerifiedPayload(payload, limits, (verified) => toClaims(verified));
    },
  };
}

function jwksFailure(error: unknown): TokenCheck {
  if (error instanceof errors.JWKSNoMatchingKey) return { ok: false, message: 'token signing key unknown to the identity provider' };
  if (error instanceof errors.JWKSMultipleMatchingKeys) return { ok: false, message: 'token names no key (kid) and several match' };
  // The provider is away or answers garbage: not the token's fault, so not a 401 (that would make players log in again).
  const providerDown =
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    error.code === 'ERR_JOSE_GENERIC';
  if (providerDown) return { ok: false, unavailable: true, message: 'identity provider key set unavailable (QP_JWKS_URL); retry later' };
  return { ok: false, message: tokenErrorMessage(error) };
}

/** localhost, 127.0.0.0/8 and [::1], written out: the relay's core imports nothing from Node (no node:net). */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

function jwksUrl(value: string | undefined): URL {
  if (!value) throw new ConfigError('jwks.url', 'missing', 'jwks.url (QP_JWKS_URL) is required');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('jwks.url', 'invalid', 'jwks.url (QP_JWKS_URL) must be an absolute URL');
  }
  // Over plain http anyone on the path could serve their own keys and sign as any player.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname))) {
    throw new ConfigError('jwks.url', 'invalid', 'jwks.url (QP_JWKS_URL) must be https: (http: only on a loopback host)');
  }
  return url;
}
