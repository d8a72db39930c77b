// The Node adapters startRelay wires in: the undici pool to the service (keep-alive, bounded, cut off by the
// attempt's timeout and by the client leaving) and the pino access log.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type RunningServer, type StartRelayOptions } from '../../src/relay/node/index.js';
import { createPinoSink } from '../../src/relay/node/log.js';
import { API_KEY, OPEN_POLICY, SECRET, token } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { caller } from './helpers.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
// The relay's upstream-key secret, from the environment as an operator gives it (a relay without one may refuse to start).
const KEY_SECRET_ENV = { QP_KEY_SECRET: 'pool-test-key-secret-0123456789abcdef-01234' };
const savedKeySecret = process.env.QP_KEY_SECRET;
beforeAll(() => {
  process.env.QP_KEY_SECRET = KEY_SECRET_ENV.QP_KEY_SECRET;
});
afterAll(() => {
  if (savedKeySecret === undefined) delete process.env.QP_KEY_SECRET;
  else process.env.QP_KEY_SECRET = savedKeySecret;
});

/** A stand-in service on 127.0.0.1 that counts its connections, requests in progress, and requests cut off. */
async function service(handler: Handler) {
  const stats = { connections: 0, active: 0, maxActive: 0, requests: 0, cutOff: 0 };
  const server = createServer((req, res) => {
    stats.requests++;
    stats.active++;
    stats.maxActive = Math.max(stats.maxActive, stats.active);
    res.on('close', () => {
      stats.active--;
      if (!res.writableFinished) stats.cutOff++;
    });
    req.resume();
    req.on('end', () => handler(req, res));
  });
  server.on('connection', () => stats.connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  stops.push(() => new Promise((resolve) => server.close(resolve).closeAllConnections()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stats };
}

async function relayTo(url: string, options: Partial<StartRelayOptions> = {}): Promise<RunningServer> {
  const relay = await startRelay({
    port: 0,
    secret: SECRET,
    policy: OPEN_POLICY,
    logger: () => {},
    ...options,
    upstream: { url, apiKey: API_KEY, retries: 0, ...options.upstream },
  });
  stops.push(() => relay.close());
  return relay;
}

const ok: Handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
const award = async (relayUrl: string, player: string, init: { signal?: AbortSignal } = {}) =>
  fetch(`${relayUrl}/group-quests/q/points`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token({ sub: player })}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
    body: JSON.stringify({ serviceUserId: player, eventPoints: 1 }),
    ...init,
  });

describe('Node adapters: the upstream pool', () => {
  it('keeps connections alive and never opens more than upstreamConnections', async () => {
    const upstream = await service((req, res) => setTimeout(() => ok(req, res), 30));
    const relay = await relayTo(upstream.url, { upstreamConnections: 2 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => award(relay.url, `p${i}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    for (let i = 0; i < 5; i++) expect((await award(relay.url, 'again')).status).toBe(200);
    expect(upstream.stats).toMatchObject({ requests: 15, maxActive: 2, connections: 2 });
  });

  it('cuts off a service that does not answer within the attempt timeout, freeing the socket', async () => {
    const upstream = await service(() => {});
    const relay = await relayTo(upstream.url, { upstream: { url: upstream.url, timeoutMs: 100 } });
    const res = await caller(relay.url)('GET', '/group-quests/q/points/u1', { token: await token({ sub: 'u1' }) });
    expect([res.status, res.json.message]).toEqual([504, 'Quest Points Service did not answer within 100 ms']);
    await until(() => upstream.stats.cutOff === 1, 'the upstream request to be closed');
  });

  it("answers an award still queued for a connection at the relay's deadline, and never sends it", async () => {
    const waiting: ServerResponse[] = [];
    const upstream = await service((_req, res) => waiting.push(res));
    const relay = await relayTo(upstream.url, { upstreamConnections: 1, deadlineMs: 400, upstream: { url: upstream.url, timeoutMs: 60_000 } });
    // A read (the attempt's 60 s timeout, no award deadline) holds the one connection.
    const held = caller(relay.url)('GET', '/group-quests/q/points/u1', { token: await token({ sub: 'u1' }) }).catch(() => undefined);
    await until(() => upstream.stats.requests === 1, 'the read to hold the one connection');
    const started = performance.now();
    const queued = await award(relay.url, 'u2');
    // The pool stops the queued exchange itself when the deadline fires (no race beside it any more).
    expect(queued.status).toBe(504);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(upstream.stats.requests).toBe(1);
    // Now the read is answered, and only then.
    for (const res of waiting) ok(undefined as never, res);
    expect((await held)?.status).toBe(200);
  });

  it('stops the upstream call when the client goes away', async () => {
    const upstream = await service(() => {});
    const relay = await relayTo(upstream.url, { upstream: { url: upstream.url, timeoutMs: 60_000 }, deadlineMs: 60_000 });
    const client = new AbortController();
    const sent = award(relay.url, 'u1', { signal: client.signal }).catch((error: Error) => error.name);
    await until(() => upstream.stats.requests === 1, 'the award to reach the service');
    client.abort();
    expect(await sent).toBe('AbortError');
    await until(() => upstream.stats.cutOff === 1, 'the upstream request to be closed');
  });

  it("passes the service's status, body and Retry-After through the pool", async () => {
    const upstream = await service((_req, res) =>
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' }).end('{"success":false,"message":"slow down"}'),
    );
    const relay = await relayTo(upstream.url);
    const res = await award(relay.url, 'u1');
    expect([res.status, res.headers.get('retry-after'), await res.json()]).toEqual([429, '3', { success: false, message: 'slow down' }]);
  });

  it('names the network error code when the service is not there', async () => {
    const upstream = await service(ok);
    await stops.pop()!();
    const relay = await relayTo(upstream.url);
    const res = await award(relay.url, 'u1');
    expect([res.status, (await res.json()).message]).toEqual([502, 'Quest Points Service unreachable (ECONNREFUSED)']);
  });
});

describe('Node adapters: the pino access log', () => {
  it('writes the same records as JSON lines, asynchronously, filtered by level', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qp-log-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'log.jsonl');
    const { sink, flush } = createPinoSink({ level: 'warn', destination: file });
    const record = { time: new Date().toISOString(), requestId: 'r1', method: 'POST', path: '/batch/points', status: 429, ms: 1.5, msg: 'request' };
    sink({ ...record, level: 'info' });
    sink({ ...record, level: 'warn' });
    sink({ time: record.time, level: 'error', msg: 'counter store unreachable' });
    await flush();
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { ...record, level: 'warn' },
      { time: record.time, level: 'error', msg: 'counter store unreachable' },
    ]);
  });

  it('the CLI relay logs through it: --log-level warn keeps the 4xx line, drops the 200, and flushes on SIGTERM', async () => {
    const upstream = await service(ok);
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'relay', '--port', '0', '--upstream', upstream.url, '--log-level', 'warn'], {
      env: { PATH: process.env.PATH, QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET, ...KEY_SECRET_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stops.push(async () => void (child.exitCode === null && child.kill('SIGKILL')));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [, url] = await until(() => /listening on (http:\/\/\S+)/.exec(stdout), 'the relay to listen');
    expect((await award(url!, 'u1')).status).toBe(200);
    expect((await caller(url!)('GET', '/group-quests/q/points/u1')).status).toBe(401);
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);
    const lines = stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        time: expect.any(String),
        level: 'warn',
        requestId: expect.any(String),
        method: 'GET',
        path: '/group-quests/q/points/u1',
        status: 401,
        ms: expect.any(Number),
        reason: 'Authorization header is required: "Bearer <token>"',
        msg: 'request',
      },
    ]);
  });
});
