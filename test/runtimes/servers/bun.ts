// The relay on Bun's own server (Bun.serve), as docs/relay.md "Deploying: Bun" shows it.
import { createRelay } from '../../../src/relay/index.js';
import { createRedisCounterStore } from '../../../src/relay/node/index.js';
import { relayOptionsFromEnv } from './env.js';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: (request: Request, server: unknown) => Response | Promise<Response> }): { port: number };
};

const env = process.env;
const redisUrl = env.QP_REDIS_URL;
delete env.QP_REDIS_URL; // createRelay refuses it: the store is opened here.
const relay = createRelay({
  ...relayOptionsFromEnv(env),
  ...(redisUrl ? { rateLimitStore: await createRedisCounterStore({ url: redisUrl }) } : {}),
});
// The server as the handler's second argument: the relay reads the client's address from it (requestIP).
const server = Bun.serve({ port: Number(env.PORT ?? 0), hostname: '127.0.0.1', fetch: (request, bun) => relay.fetch(request, bun) });
console.log(`listening on http://127.0.0.1:${server.port}`);
