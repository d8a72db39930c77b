// The relay on Deno's own server: `deno run --allow-net --allow-env --allow-read --allow-sys server.ts` (deno.json
// beside it). Or the CLI: `deno run -A npm:quest-points relay --upstream ...`.
import { createRelay } from 'quest-points/relay';
import { createRedisCounterStore } from 'quest-points/relay/node';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request, info: unknown) => Response | Promise<Response>,
  ): unknown;
};

// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET. node-redis runs on Deno: with
// QP_REDIS_URL, every instance shares the rate limits and the idempotency record.
const redisUrl = Deno.env.get('QP_REDIS_URL');
const shared = redisUrl ? await createRedisCounterStore({ url: redisUrl }) : undefined;
const relay = createRelay({
  policy: Deno.env.get('QP_POLICY_FILE') ?? './quest-policy.json',
  ...(shared ? { rateLimitStore: shared, idempotency: { store: shared.records } } : {}),
});
// Loopback, as the CLI; the handler info rides along: the relay reads the client's address (remoteAddr) from it.
Deno.serve(
  { hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') ?? 8788), onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`) },
  (request, info) => relay.fetch(request, info),
);
