// The relay mounted in a Fastify 5 app: `node --import tsx server.ts`.
import Fastify from 'fastify';
import { createRelay, toNodeListener } from 'quest-points/relay/node';

const app = Fastify();
// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET; basePath is the plugin's prefix.
const relay = toNodeListener(createRelay({ basePath: '/qp', policy: process.env.QP_POLICY_FILE ?? './quest-policy.json' }));
await app.register(
  (scope, _options, registered) => {
    scope.removeAllContentTypeParsers(); // the relay reads and checks the body itself
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all('/*', (request, reply) => {
      reply.hijack();
      return relay(request.raw, reply.raw);
    });
    registered();
  },
  { prefix: '/qp' },
);
app.get('/api/health', async () => ({ game: 'ok' }));
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${address}/qp`);
