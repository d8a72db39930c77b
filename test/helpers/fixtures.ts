// The test suite's secrets and default policies, defined once: every relay, emulator and token of the tests uses
// these, so a test that scans output for secrets scans for the real ones.
import { signPlayerToken, upstreamIdempotencyKey, type PlayerClaims, type RelayPolicy } from '../../src/relay/index.js';

/** The relay's player-token secret (HS256, at least 32 characters). */
export const SECRET = 'test-relay-secret-0123456789abcdef-0123456789';
/** The relay's key secret: names the upstream idempotency keys, never rotates (docs/relay.md). */
export const KEY_SECRET = 'test-key-secret-fedcba9876543210-fedcba987654';
/** A secret the relay does not hold: tokens signed with it are forgeries. */
export const OTHER_SECRET = 'another-secret-of-the-tests-0123456789abcdef';
/** The Quest Points Service API key: the emulator accepts it, the relay holds it. */
export const API_KEY = 'qp_test_api_key_5f0c1b2a9d8e7f6a5b4c3d2e1f';

/** A permissive policy for tests that are about something else than the policy. */
export const OPEN_POLICY = {
  allowUnknownEvents: true,
  events: { penalty: { maxPoints: 50, allowNegative: true }, bonus: { points: 25 } },
  maxPointsPerAward: 1000,
} as const satisfies RelayPolicy;

/** For SDK tests: unknown events pass, a high cap, rate limits far above what a test sends. */
export const ROOMY_POLICY: RelayPolicy = {
  allowUnknownEvents: true,
  maxPointsPerAward: 1000,
  rateLimits: { perPlayer: { limit: 100_000, windowSeconds: 60 }, perIp: { limit: 100_000, windowSeconds: 60 } },
};

/** A player token signed with the tests' relay secret. */
export const token = (claims: PlayerClaims, ttl: string | number = '5m') => signPlayerToken(claims, { secret: SECRET, ttl });

/** The idempotency key the service sees for a player's client key: the relay derives one per player (docs/relay.md). */
export const upstreamKey = (sub: string, clientKey: string) => upstreamIdempotencyKey(KEY_SECRET, sub, clientKey);
