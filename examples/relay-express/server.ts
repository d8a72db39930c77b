// The relay mounted in an Express 5 app: `node --import tsx server.ts`.
import express from 'express';
import { createRelay, toNodeListener } from 'quest-points/relay/node';

const app = express();
// Before any body parser: the relay reads and limits the body itself. Express strips the mount path (no basePath).
// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET.
app.use('/qp', toNodeListener(createRelay({ policy: process.env.QP_POLICY_FILE ?? './quest-policy.json' })));
app.use(express.json()); // the game's own routes, after
app.get('/api/health', (_request, response) => void response.json({ game: 'ok' }));
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}/qp`); // the SDK's relayUrl
});
