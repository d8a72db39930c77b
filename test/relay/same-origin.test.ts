// Same-origin behind a TLS-terminating proxy, over real sockets, on the fast path (single award) and through Hono
// (batch). The page at https://host sends `Origin: https://host`; the relay's socket is plain http. The relay once
// rebuilt its own origin as http://host and refused every award 403: every award of every player dead-lettered.
import { createServer, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, type LogRecord, type RelayPolicy } from '../../src/relay/index.js';
import { startRelay, toNodeListener, type RunningServer, type StartRelayOptions } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';

const POLICY: RelayPolicy = { allowUnknownEvents: true, maxPointsPerAward: 100 };
const service = async () => Response.json({ success: true });

const relays: RunningServer[] = [];
const logs: LogRecord[] = [];
const start = async (options: Partial<StartRelayOptions>) => {
  const relay = await startRelay({
    port: 0,
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: POLICY,
    logger: (record) => logs.push(record),
    upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: service },
    ...options,
  });
  relays.push(relay);
  return relay;
};
afterAll(() => Promise.all(relays.map((relay) => relay.close())));

/** Single award (fast path unless it is off) and batch (Hono), with exactly these headers; the two statuses. */
async function statuses(relay: RunningServer, headers: Record<string, string>): Promise<[number, number]> {
  const sub = `p-${crypto.randomUUID().slice(0, 8)}`;
  const auth = { authorization: `Bearer ${await token({ sub })}`, ...headers };
  const single = await post(relay.port, '/group-quests/q/points', auth, { serviceUserId: sub, eventPoints: 1 });
  const batch = await post(relay.port, '/batch/points', auth, {
    awards: [{ questId: 'q', serviceUserId: sub, eventPoints: 1, idempotencyKey: crypto.randomUUID() }],
  });
  return [single, batch];
}

function post(port: number, path: string, headers: Record<string, string>, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe.each([true, false])('same-origin behind a TLS proxy (fastPath %s)', (fastPath) => {
  let behindProxy: RunningServer;
  let direct: RunningServer;
  beforeAll(async () => {
    [behindProxy, direct] = await Promise.all([start({ fastPath, trustProxy: 1 }), start({ fastPath })]);
  });

  it("X-Forwarded-Proto https from a trusted proxy: the page at https://host is the relay's own origin", async () => {
    const host = `127.0.0.1:${behindProxy.port}`;
    expect(await statuses(behindProxy, { host, origin: `https://${host}`, 'x-forwarded-proto': 'https' })).toEqual([200, 200]);
  });

  it('RFC 7239 Forwarded proto and host, when the relay is told to read that header', async () => {
    const relay = await start({ fastPath, trustProxy: 1, forwardedHeader: 'forwarded' });
    const forwarded = 'for=192.0.2.1;proto=https;host=game.example.com';
    expect(await statuses(relay, { origin: 'https://game.example.com', forwarded })).toEqual([200, 200]);
    // X-Forwarded-* is not the header named: not read.
    expect(
      await statuses(relay, { origin: 'https://game.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'game.example.com' }),
    ).toEqual([403, 403]);
  });

  it('X-Forwarded-Host: a proxy that rewrites Host (proxy_pass to the upstream name)', async () => {
    expect(
      await statuses(behindProxy, { origin: 'https://game.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'game.example.com' }),
    ).toEqual([200, 200]);
  });

  it('Sec-Fetch-Site: same-origin, with or without a proxy and whatever it forwards', async () => {
    expect(await statuses(direct, { origin: 'https://game.example.com', 'sec-fetch-site': 'same-origin' })).toEqual([200, 200]);
    expect(await statuses(behindProxy, { origin: 'https://game.example.com', 'sec-fetch-site': 'same-origin' })).toEqual([200, 200]);
  });

  it("refuses what is not the relay's origin: an untrusted forwarded scheme, another site, a browser saying cross-site", async () => {
    const host = `127.0.0.1:${direct.port}`;
    // No trustProxy: X-Forwarded-Proto is anyone's claim.
    expect(await statuses(direct, { host, origin: `https://${host}`, 'x-forwarded-proto': 'https' })).toEqual([403, 403]);
    expect(await statuses(behindProxy, { origin: 'https://evil.example', 'x-forwarded-proto': 'https' })).toEqual([403, 403]);
    expect(await statuses(behindProxy, { origin: 'https://evil.example', 'sec-fetch-site': 'same-site' })).toEqual([403, 403]);
    // A browser's word beats the rebuilt origin: it says cross-site, so the matching rebuilt origin is not enough.
    const behind = `127.0.0.1:${behindProxy.port}`;
    expect(
      await statuses(behindProxy, { host: behind, origin: `https://${behind}`, 'x-forwarded-proto': 'https', 'sec-fetch-site': 'cross-site' }),
    ).toEqual([403, 403]);
    // One proxy trusted: the last entry is its own; the client's claim further left is not taken for it.
    expect(await statuses(behindProxy, { host: behind, origin: `https://${behind}`, 'x-forwarded-proto': 'https, http' })).toEqual([403, 403]);
    // Plain http to the relay itself still is its own origin.
    expect(await statuses(direct, { host, origin: `http://${host}` })).toEqual([200, 200]);
  });
});

describe("the README's production shape behind TLS: createRelay mounted at /qp on the game's server, no corsOrigins", () => {
  it('the page at https://host passes in every current browser; an older one needs trustProxy', async () => {
    const options = {
      secret: SECRET,
      keySecret: KEY_SECRET,
      policy: POLICY,
      logger: () => {},
      upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: service },
    };
    const listen = async (relay: ReturnType<typeof createRelay>) => {
      const listener = toNodeListener(relay);
      // As Express's app.use('/qp', listener) hands it over: the mount path taken off the URL.
      const server = createServer((req, res) => {
        req.url = req.url?.slice('/qp'.length) || '/';
        void listener(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, port: (server.address() as { port: number }).port };
    };
    const plain = await listen(createRelay(options));
    const trusting = await listen(createRelay({ ...options, trustProxy: 1 }));
    try {
      // What nginx passes on (docs/relay/deploy.md): Host as the browser asked, the scheme it terminated.
      const nginx = { host: 'game.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7', origin: 'https://game.example.com' };
      const award = async (port: number, headers: Record<string, string>) => {
        const sub = `p-${crypto.randomUUID().slice(0, 8)}`;
        return post(
          port,
          '/qp/group-quests/q/points',
          { ...headers, authorization: `Bearer ${await token({ sub })}` },
          { serviceUserId: sub, eventPoints: 1 },
        );
      };
      expect(await award(plain.port, { ...nginx, 'sec-fetch-site': 'same-origin' })).toBe(200);
      expect(await award(plain.port, nginx)).toBe(403);
      expect(await award(trusting.port, nginx)).toBe(200);
    } finally {
      for (const { server } of [plain, trusting]) await new Promise((resolve) => server.close(resolve));
    }
  });
});
