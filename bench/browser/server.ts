// One origin for the benchmark page: the page and its bundle, and the relay proxied under /api (so no CORS), with
// the relay's upstream an emulator server. The emulator runs as its own process (as the service does in production:
// relay and service never share an event loop); the relay and the page server run in the bench process. Each
// listens on 127.0.0.1, port 0.
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { signPlayerToken, startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { bundlePage } from '../lib/bundle.js';
import { spawnEmulator } from '../lib/emulator-process.js';

const API_KEY = 'bench-api-key';
const SECRET = 'bench-relay-secret-that-is-long-enough-0123456789';
/** Names upstream idempotency keys (never rotates). */
const KEY_SECRET = 'bench-key-secret-fedcba9876543210fedcba98';
export const BENCH_PLAYER = 'bench-player';

export interface BenchServer {
  url: string;
  /** A player token for BENCH_PLAYER, valid for the whole run. */
  token: string;
  /** Ledger entries the emulator holds for a quest: what was really delivered. */
  delivered(questId: string): Promise<number>;
  /** Where each piece runs, for the report. */
  topology: string;
  close(): Promise<void>;
}

const PAGE = '<!doctype html><meta charset="utf-8"><title>quest-points bench</title><script type="module" src="/page.js"></script>';

export async function startBenchServer(): Promise<BenchServer> {
  const script = await bundlePage(fileURLToPath(new URL('./page.ts', import.meta.url)));
  const emulator = await spawnEmulator(API_KEY);
  let relay: RunningServer;
  try {
    relay = await startRelay({
      port: 0,
      upstream: { url: emulator.url, apiKey: API_KEY },
      secret: SECRET,
      keySecret: KEY_SECRET,
      maxTokenAgeSeconds: 6 * 3600,
      // The bench's one event, and no rate limits: the figures are throughput, not the operator's policy.
      policy: { events: { Bench: { maxPoints: 100 } }, rateLimits: {} },
      // 20,000+ request lines on stderr would drown the table; the log call itself still runs.
      logger: () => {},
    });
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const relayAddress = new URL(relay.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });

  function proxy(req: IncomingMessage, res: ServerResponse) {
    const upstream = request(
      {
        host: relayAddress.hostname,
        port: relayAddress.port,
        method: req.method,
        path: req.url!.slice('/api'.length) || '/',
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.headersSent || res.writeHead(502).end());
    req.pipe(upstream);
  }

  const server = createServer((req, res) => {
    // Cross-origin isolation gives performance.now() 5 µs resolution instead of 100 µs: award() costs microseconds.
    const isolation = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
    const path = req.url?.split('?')[0];
    if (path?.startsWith('/api/')) return proxy(req, res);
    if (path === '/') return res.writeHead(200, { ...isolation, 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (path === '/page.js') return res.writeHead(200, { ...isolation, 'content-type': 'text/javascript' }).end(script);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token: await signPlayerToken({ sub: BENCH_PLAYER }, { secret: SECRET, ttl: '6h', maxTokenAgeSeconds: 6 * 3600 }),
    delivered: (questId) => emulator.delivered(questId),
    topology: 'emulator: own process (CLI); relay and page server: bench process',
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
      await relay.close();
      await emulator.close();
    },
  };
}
