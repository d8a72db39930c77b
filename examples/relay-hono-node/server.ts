// The relay inside a Hono app, served on Node by @hono/node-server: `node --import tsx server.ts`.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createRelay } from 'quest-points/relay';

const app = new Hono();
// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET; basePath is where it is mounted.
const relay = createRelay({ basePath: '/qp', policy: process.env.QP_POLICY_FILE ?? './quest-policy.json' });
// c.env carries Node's request: the relay reads the client's socket address from it.
app.all('/qp/*', (c) => relay.fetch(c.req.raw, c.env));
app.get('/api/health', (c) => c.json({ game: 'ok' }));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT ?? 3000) }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}/qp`);
});
