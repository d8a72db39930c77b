// The relay as a Cloudflare Worker, as docs/relay.md "Deploying: Cloudflare Workers" shows it: the settings from the
// Worker's bindings, rate limits in Durable Objects when RATE_LIMITS is bound (in this isolate's memory otherwise).
import { createDurableObjectCounterStore, createRelay, RateLimitCounter, type DurableObjectNamespaceLike } from '../../../src/relay/index.js';

export { RateLimitCounter };

interface Env {
  QP_UPSTREAM_URL: string;
  QP_API_KEY: string;
  QP_RELAY_SECRET: string;
  QP_KEY_SECRET: string;
  QP_POLICY_JSON: string;
  RATE_LIMITS?: DurableObjectNamespaceLike;
}

let relay: ReturnType<typeof createRelay> | undefined;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    // Built on the first request (bindings arrive with it), then reused by every request of this isolate.
    relay ??= createRelay({
      upstream: { url: env.QP_UPSTREAM_URL, apiKey: env.QP_API_KEY },
      secret: env.QP_RELAY_SECRET,
      keySecret: env.QP_KEY_SECRET,
      policy: JSON.parse(env.QP_POLICY_JSON),
      ...(env.RATE_LIMITS ? { rateLimitStore: createDurableObjectCounterStore(env.RATE_LIMITS) } : {}),
    });
    return relay.fetch(request, env, ctx as never);
  },
};
