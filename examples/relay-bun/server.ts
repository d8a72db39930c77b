// The relay on Bun's own server: `bun run server.ts`. (The CLI on Bun: `bunx --bun quest-points relay`.)
import { createRelay } from 'quest-points/relay';
import { createRedisCounterStore } from 'quest-points/relay/node';

declare const Bun: {
  serve(options: { hostname: string; port: number; fetch: (request: Request, server: unknown) => Response | Promise<Response> }): { port: number };
};

// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET. node-redis runs on Bun: with QP_REDIS_URL,
// every instance shares the rate limits and the idempotency record.
const redisUrl = process.env.QP_REDIS_URL;
delete process.env.QP_REDIS_URL; // createRelay opens no connection: the store is opened here
const shared = redisUrl ? await createRedisCounterStore({ url: redisUrl }) : undefined;
const relay = createRelay({
  policy: process.env.QP_POLICY_FILE ?? './quest-policy.json',
  ...(shared ? { rateLimitStore: shared, idempotency: { store: shared.records } } : {}),
});
// Loopback, as the CLI; the server rides along as the second argument: the relay reads the client's address from it.
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT ?? 8788), fetch: (request, bun) => relay.fetch(request, bun) });
console.log(`listening on http://127.0.0.1:${server.port}`);
