// What every one-file server of the runtime tests reads: the docs' snippets with the test's settings from the
// environment (the service, the secrets, the policy as JSON, Redis when QP_REDIS_URL is set).
import type { RelayOptions } from '../../../src/relay/index.js';

export function relayOptionsFromEnv(env: Record<string, string | undefined>): RelayOptions {
  return {
    upstream: { url: env.QP_UPSTREAM_URL!, apiKey: env.QP_API_KEY! },
    secret: env.QP_RELAY_SECRET!,
    keySecret: env.QP_KEY_SECRET!,
    policy: JSON.parse(env.QP_POLICY_JSON ?? '{"allowUnknownEvents":true,"maxPointsPerAward":1000}'),
  };
}
