// The relay as a Cloudflare Worker: `npx wrangler dev` runs it locally on workerd, `npx wrangler deploy` ships it
// (wrangler bundles this file and its imports). Rate limits and the idempotency record in Durable Objects.
import {
  createDurableObjectCounterStore,
  createDurableObjectRecordStore,
  createRelay,
  IdempotencyRecords,
  RateLimitCounter,
  type DurableObjectNamespaceLike,
} from 'quest-points/relay';
import policy from '../quest-policy.json' with { type: 'json' };

// The Durable Object classes behind the two stores, bound in wrangler.toml.
export { IdempotencyRecords, RateLimitCounter };

interface Env {
  QP_UPSTREAM_URL: string;
  QP_API_KEY: string; // wrangler secret put QP_API_KEY
  QP_RELAY_SECRET: string; // wrangler secret put QP_RELAY_SECRET
  QP_KEY_SECRET: string; // wrangler secret put QP_KEY_SECRET (never rotates)
  RATE_LIMITS: DurableObjectNamespaceLike;
  IDEMPOTENCY: DurableObjectNamespaceLike;
}

let relay: ReturnType<typeof createRelay> | undefined;

export default {
  fetch(request: Request, env: Env, ctx: unknown) {
    // Built on the first request (the bindings arrive with it), kept for the isolate's life.
    relay ??= createRelay({
      upstream: { url: env.QP_UPSTREAM_URL, apiKey: env.QP_API_KEY },
      secret: env.QP_RELAY_SECRET,
      keySecret: env.QP_KEY_SECRET,
      policy, // an object: no file system on Workers
      corsOrigins: ['https://game.example.com'],
      rateLimitStore: createDurableObjectCounterStore(env.RATE_LIMITS),
      idempotency: { store: createDurableObjectRecordStore(env.IDEMPOTENCY) },
    });
    // The bindings ride along: the relay reads the client's address from CF-Connecting-IP.
    return relay.fetch(request, env, ctx as never);
  },
};
