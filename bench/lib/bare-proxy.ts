// The baseline for the relay (figure 3): a bare pass-through proxy on node:http, run as its own process like the
// relay. It adds the API key and forwards the request as is (no auth, no policy, no limits, no per-player keys or
// ordering, no metrics, no log). /batch/points has no counterpart at the service, so there it does the least a
// batch needs: parse the body, post each award (8 at a time, as the relay) and answer one result per award.
import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import pLimit from 'p-limit';

const upstream = new URL(process.env.QP_UPSTREAM_URL ?? '');
const apiKey = process.env.QP_API_KEY ?? '';
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

interface Answer {
  status: number;
  body: Buffer;
  headers: IncomingMessage['headers'];
}

function forward(
  method: string,
  path: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  retried = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path,
        agent,
        headers: { ...headers, host: upstream.host, api_key: apiKey, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks), headers: res.headers }));
        res.on('error', reject);
      },
    );
    // The upstream may close an idle keep-alive socket just as it is reused: send once more on a fresh one (Node's
    // documented remedy for reusedSocket). The award carries its idempotency key, so sending it twice is safe.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && error.code === 'ECONNRESET' && !retried) forward(method, path, headers, body, true).then(resolve, reject);
      else reject(error);
    });
    req.end(body);
  });
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

interface WireAward {
  questId: string;
  idempotencyKey: string;
  serviceUserId: string;
  eventPoints: number;
  eventName?: string;
  eventDescription?: string;
}

const server = createServer(async (req, res) => {
  try {
    const body = await readBody(req);
    if (req.url === '/batch/points') {
      const { awards } = JSON.parse(body.toString()) as { awards: WireAward[] };
      const limit = pLimit(8);
      const results = await Promise.all(
        awards.map(({ questId, idempotencyKey, ...award }) =>
          limit(async () => {
            const answer = await forward(
              'POST',
              `/group-quests/${encodeURIComponent(questId)}/points`,
              { 'content-type': 'application/json', idempotency_key: idempotencyKey },
              Buffer.from(JSON.stringify(award)),
            );
            return { idempotencyKey, outcome: answer.status === 200 ? 'ok' : 'retry', status: answer.status };
          }),
        ),
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      return;
    }
    const { authorization, ...headers } = req.headers;
    const answer = await forward(req.method ?? 'GET', req.url ?? '/', headers, body);
    res.writeHead(answer.status, { 'content-type': answer.headers['content-type'] ?? 'application/json' }).end(answer.body);
  } catch (error) {
    res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
