// The relay on Deno's own server (Deno.serve), as docs/relay.md "Deploying: Deno" shows it.
import { createRelay } from '../../../src/relay/index.js';
import { createRedisCounterStore } from '../../../src/relay/node/index.js';
import { relayOptionsFromEnv } from './env.js';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { port: number; hostname: string; onListen(address: { port: number }): void },
    handler: (request: Request, info: unknown) => Response | Promise<Response>,
  ): unknown;
};

const env = Deno.env.toObject();
const relay = createRelay({
  ...relayOptionsFromEnv(env),
  ...(env.QP_REDIS_URL ? { rateLimitStore: await createRedisCounterStore({ url: env.QP_REDIS_URL }) } : {}),
});
// The handler info as the second argument: the relay reads the client's address from it (remoteAddr).
Deno.serve(
  { port: Number(env.PORT ?? 0), hostname: '127.0.0.1', onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`) },
  (request, info) => relay.fetch(request, info),
);
