// `npm run example operator-server`: the operator's server of app.ts on http://127.0.0.1:3000, its page served by Vite
// in middleware mode, against the dev stack: a local emulator in place of the Quest Points Service, and random
// secrets unless QP_API_KEY, QP_RELAY_SECRET, QP_KEY_SECRET and SESSION_SECRET are set. The tests start it on port 0.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEmulator } from 'quest-points/emulator';
import { createServer as createVite } from 'vite';
import { createGameServer } from './app.js';

export async function startOperatorExample(port = Number(process.env.PORT ?? 3000)) {
  const random = () => randomBytes(32).toString('base64url');
  const apiKey = process.env.QP_API_KEY ?? random();
  const emulator = await startEmulator({ port: 0, apiKeys: [apiKey], admin: true });
  const app = createGameServer({
    upstreamUrl: emulator.url,
    apiKey,
    relaySecret: process.env.QP_RELAY_SECRET ?? random(),
    keySecret: process.env.QP_KEY_SECRET ?? random(),
    sessionSecret: process.env.SESSION_SECRET ?? random(),
  });
  // The page (index.html, page.ts) through Vite, after the server's own routes.
  const root = fileURLToPath(new URL('.', import.meta.url));
  const vite = await createVite({ root, configFile: false, server: { middlewareMode: true }, appType: 'spa', logLevel: 'warn' });
  app.use(vite.middlewares);
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    emulatorUrl: emulator.url,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all([vite.close(), emulator.close()]);
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await startOperatorExample();
  console.log(`operator's game server on ${running.url} (emulator on ${running.emulatorUrl})`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void running.close());
}
