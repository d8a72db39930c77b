// The award route's Node fast path (src/relay/node/fast-award.ts) does what the Hono path does, beyond the answer
// (fast-award.test.ts compares those byte for byte): the same log records and the same metrics, request by request,
// behind a trusted proxy (trustProxy: the forwarded client address and scheme), with the counter store down, with
// the identity provider's key set unreachable, and when the client goes away mid-request.
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCounterStore, type CounterStore, type LogRecord, type MetricsSink, type RelayPolicy } from '../../src/relay/index.js';
import { startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { exchange } from '../helpers/wire.js';

const POLICY: RelayPolicy = {
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  rateLimits: { perPlayer: { limit: 100, windowSeconds: 3600 }, perIp: { limit: 1000, windowSeconds: 3600 } },
};
const ISSUER = 'https://login.game.example/';
const AUDIENCE = 'quest-points-relay';

/** The service: quest `slow` answers after 1 s (a client may leave meanwhile). */
async function service(request: Request): Promise<Response> {
  if (new URL(request.url).pathname.includes('/slow/')) await new Promise((resolve) => setTimeout(resolve, 1_000));
  return Response.json({ success: true });
}

/** What one relay did: its log records and its metrics calls, in order. */
interface Seen {
  logs: LogRecord[];
  metrics: string[];
}

const recorder = (seen: Seen): MetricsSink => ({
  award: (label) => seen.metrics.push(`award ${label}`),
  limited: (limit) => seen.metrics.push(`limited ${limit}`),
  storeError: (behaviour) => seen.metrics.push(`storeError ${behaviour}`),
  request: (status) => seen.metrics.push(`request ${status}`),
  inFlight: (delta) => seen.metrics.push(`inFlight ${delta}`),
  // The duration differs by chance.
  upstream: (method, result) => seen.metrics.push(`upstream ${method} ${result}`),
});

/** The counter store both relays count in, each its own, and a switch that takes both down. */
const storeDown = { now: false };
const switchable = (): CounterStore => {
  const memory = createMemoryCounterStore();
  return { increment: (key, windowMs) => (storeDown.now ? Promise.reject(new Error('store down')) : memory.increment(key, windowMs)) };
};

let provider: Server;
let providerUrl: string;
/** false: the key set answers 503 (the identity provider down). */
const providerUp = { now: false };
let signJwks: (sub: string) => Promise<string>;

const fast: Seen = { logs: [], metrics: [] };
const plain: Seen = { logs: [], metrics: [] };
const relays: RunningServer[] = [];
let fastRelay: RunningServer;
let plainRelay: RunningServer;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  provider = createServer((_request, response) => {
    response.writeHead(providerUp.now ? 200 : 503, { 'content-type': 'application/json' });
    response.end(providerUp.now ? JSON.stringify({ keys: [jwk] }) : '{}');
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}/jwks.json`;
  const now = () => Math.floor(Date.now() / 1000);
  signJwks = (sub) =>
    new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub, iat: now(), exp: now() + 600 }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
  const start = async (fastPath: boolean, seen: Seen) => {
    const relay = await startRelay({
      port: 0,
      fastPath,
      secret: SECRET,
      keySecret: KEY_SECRET,
      jwks: { url: providerUrl, issuer: ISSUER, audience: AUDIENCE, cooldownMs: 0, timeoutMs: 1000 },
      policy: POLICY,
      trustProxy: 1,
      deadlineMs: 600,
      rateLimitStore: switchable(),
      logger: (record) => seen.logs.push(record),
      metrics: recorder(seen),
      upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: service },
    });
    relays.push(relay);
    return relay;
  };
  [fastRelay, plainRelay] = await Promise.all([start(true, fast), start(false, plain)]);
});
afterAll(async () => {
  await Promise.all(relays.map((relay) => relay.close()));
  await new Promise((resolve) => provider?.close(resolve));
});

interface Case {
  name: string;
  quest?: string;
  headers: Record<string, string>;
  body: string;
  leave?: 'mid-body' | 'after-body';
  before?: () => void;
}

const request = (port: number, c: Case) => {
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    connection: 'close',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(c.body)),
    'x-request-id': c.name.replace(/\W+/g, '-').slice(0, 60),
    ...c.headers,
  };
  const head = `POST /group-quests/${c.quest ?? 'q'}/points HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return exchange(port, head, c.body, c.leave);
};

/** A log record without what differs by time. */
const comparable = ({ time, ms, ...rest }: LogRecord) => rest;

describe('the fast path and the Hono path: the same log records and metrics', { timeout: 60_000 }, () => {
  it('request by request, in a world with proxies, outages and clients that leave', async () => {
    const award = (sub: string) => JSON.stringify({ serviceUserId: sub, eventPoints: 1 });
    const bearer = async (sub: string) => ({ authorization: `Bearer ${await token({ sub })}` });
    const proxied = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' };
    const cases: Case[] = [
      { name: 'valid', headers: await bearer('a'), body: award('a') },
      { name: 'through the proxy, its https page', headers: { ...(await bearer('b')), ...proxied, origin: 'https://PORT' }, body: award('b') },
      { name: 'an origin refused', headers: { ...(await bearer('c')), ...proxied, origin: 'https://evil.example' }, body: award('c') },
      { name: 'a JWKS token, the provider down', headers: { authorization: `Bearer ${await signJwks('d')}` }, body: award('d') },
      {
        name: 'a JWKS token, the provider back',
        headers: { authorization: `Bearer ${await signJwks('e')}` },
        body: award('e'),
        before: () => {
          providerUp.now = true;
        },
      },
      {
        name: 'the counter store down',
        headers: await bearer('f'),
        body: award('f'),
        before: () => {
          storeDown.now = true;
        },
      },
      {
        name: 'the counter store back',
        headers: await bearer('g'),
        body: award('g'),
        before: () => {
          storeDown.now = false;
        },
      },
      { name: 'the client leaves mid-body', headers: await bearer('h'), body: award('h'), leave: 'mid-body' },
      { name: 'the client leaves while the service works', quest: 'slow', headers: await bearer('i'), body: award('i'), leave: 'after-body' },
    ];
    const statuses: string[] = [];
    for (const c of cases) {
      c.before?.();
      const fastFrom = { logs: fast.logs.length, metrics: fast.metrics.length };
      const plainFrom = { logs: plain.logs.length, metrics: plain.metrics.length };
      const forPort = (port: number): Case => ({
        ...c,
        headers: Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, v.replace('PORT', `127.0.0.1:${port}`)])),
      });
      const [viaFast, viaHono] = [await request(fastRelay.port, forPort(fastRelay.port)), await request(plainRelay.port, forPort(plainRelay.port))];
      // Each relay has written the request's access line (a client that left is logged when the relay is done).
      for (const [seen, from] of [
        [fast, fastFrom],
        [plain, plainFrom],
      ] as const) {
        await until(
          () => seen.logs.slice(from.logs).some((record) => record.msg === 'request'),
          `${c.name}: the access line (${seen === fast ? 'fast' : 'hono'})`,
          10_000,
        );
        await until(() => seen.metrics.slice(from.metrics).includes('inFlight -1'), `${c.name}: the request closed in the metrics`, 10_000);
      }
      const fastLines = fast.logs.slice(fastFrom.logs).map(comparable);
      const plainLines = plain.logs.slice(plainFrom.logs).map(comparable);
      expect(fastLines, c.name).toEqual(plainLines);
      expect(fast.metrics.slice(fastFrom.metrics), c.name).toEqual(plain.metrics.slice(plainFrom.metrics));
      if (!c.leave) expect(viaFast.slice(0, 12), c.name).toBe(viaHono.slice(0, 12));
      const line = plainLines.find((record) => record.msg === 'request');
      statuses.push(`${c.name}: ${line?.status}${line?.code ? ` ${line.code}` : ''}`);
    }
    // The cases reach what they are named for.
    expect(statuses).toEqual([
      'valid: 200',
      'through the proxy, its https page: 200',
      'an origin refused: 403 origin',
      'a JWKS token, the provider down: 503',
      'a JWKS token, the provider back: 200',
      'the counter store down: 503',
      'the counter store back: 200',
      'the client leaves mid-body: 400 invalid',
      'the client leaves while the service works: 504',
    ]);
  });
  it('at once: the same records and metrics for a burst of concurrent awards (one player, and many)', async () => {
    const burst = async (relay: RunningServer, seen: Seen) => {
      const from = { logs: seen.logs.length, metrics: seen.metrics.length };
      const one = await token({ sub: 'burst' });
      const cases = await Promise.all(
        Array.from({ length: 16 }, async (_, i): Promise<Case> => {
          const sub = i % 2 ? 'burst' : `burst-${i}`;
          return {
            name: `burst ${i}`,
            headers: { authorization: `Bearer ${i % 2 ? one : await token({ sub })}`, idempotency_key: crypto.randomUUID() },
            body: JSON.stringify({ serviceUserId: sub, eventPoints: 1 }),
          };
        }),
      );
      await Promise.all(cases.map((c) => request(relay.port, c)));
      await until(() => seen.logs.slice(from.logs).filter((record) => record.msg === 'request').length === 16, 'every access line', 10_000);
      const lines = seen.logs.slice(from.logs).map((record) => JSON.stringify(comparable(record)));
      return { lines: lines.sort(), metrics: seen.metrics.slice(from.metrics).sort() };
    };
    const viaFast = await burst(fastRelay, fast);
    const viaHono = await burst(plainRelay, plain);
    expect(viaFast).toEqual(viaHono);
    expect(viaHono.metrics.filter((metric) => metric === 'award ok')).toHaveLength(16);
  });
});
