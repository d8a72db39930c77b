// What an operator watches: health, readiness, Prometheus metrics, request ids, bounded tokens, graceful shutdown.
import { SignJWT } from 'jose';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPrometheusMetrics, startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { createRelay, type AwardLabel, type MetricsSink } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { award, caller, fakeRelay, uuid } from './helpers.js';

describe('GET /healthz and /readyz', () => {
  it('/healthz answers 200 without a token, and is not logged', async () => {
    const { call, logs, seen } = fakeRelay();
    const res = await call('GET', '/healthz');
    expect([res.status, res.json]).toEqual([200, { success: true, data: { status: 'ok' } }]);
    expect(logs).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('/readyz is 200 when the service answers, 503 naming the service when it does not, and reuses one answer for a second', async () => {
    // The relay's clock (performance.now) is the test's: the cache's second passes at once, not in real time.
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => void vi.useRealTimers());
    let up = true;
    const { call, seen } = fakeRelay({
      upstream: { retries: 0 },
      reply: () => {
        if (!up) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
        return Response.json({ success: false, message: 'User not found' }, { status: 404 });
      },
    });
    const ready = await call('GET', '/readyz');
    expect([ready.status, ready.json]).toEqual([200, { success: true, data: { service: 'ok', store: 'ok (in memory)' } }]);
    await Promise.all(Array.from({ length: 20 }, () => call('GET', '/readyz')));
    expect(seen).toHaveLength(1); // 21 probes in the same second, one call to the service
    expect(seen[0]!.headers.api_key).toBe(API_KEY);
    up = false;
    // Within the second the answer is the cached one; a moment after, the service is asked again.
    vi.advanceTimersByTime(900);
    expect((await call('GET', '/readyz')).status).toBe(200);
    expect(seen).toHaveLength(1);
    vi.advanceTimersByTime(200);
    const down = await call('GET', '/readyz');
    expect(down.status).toBe(503);
    expect(down.json).toEqual({
      success: false,
      message: 'not ready: service: Quest Points Service unreachable (ECONNREFUSED)',
      checks: { service: 'Quest Points Service unreachable (ECONNREFUSED)', store: 'ok (in memory)' },
    });
  });

  it('/readyz cancels a probe the service did not answer in time (main a0b4a06 left it running until the upstream timeout)', async () => {
    const aborted: boolean[] = [];
    const app = createRelay({
      secret: SECRET,
      keySecret: KEY_SECRET,
      upstream: {
        url: 'http://upstream.test',
        apiKey: API_KEY,
        timeoutMs: 60_000,
        retries: 0,
        fetch: (request) =>
          new Promise<Response>((_resolve, reject) => {
            request.signal.addEventListener('abort', () => {
              aborted.push(true);
              reject(request.signal.reason);
            });
          }),
      },
    });
    const res = await caller(app.fetch)('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.json.message).toContain('did not answer within');
    await vi.waitFor(() => expect(aborted).toEqual([true]), { timeout: 2000 });
  });

  it("/readyz is 503 when the service refuses the relay's API key", async () => {
    const { call } = fakeRelay({ reply: () => Response.json({ success: false, message: 'bad key' }, { status: 401 }) });
    const res = await call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.json.message).toBe("not ready: service: Quest Points Service refused the relay's API key (check QP_API_KEY)");
  });
});

describe('GET /metrics', () => {
  it("Prometheus text from the relay's own registry: awards by outcome, upstream latency, limiter refusals, in flight", async () => {
    const policy = { allowUnknownEvents: true, maxPointsPerAward: 10, rateLimits: { perPlayer: { limit: 2, windowSeconds: 60 } } };
    const { call } = fakeRelay({ policy, metrics: await createPrometheusMetrics() });
    const jwt = await token({ sub: 'm1' });
    const one = (points: number) =>
      call('POST', '/group-quests/q1/points', {
        token: jwt,
        headers: { IDEMPOTENCY_KEY: uuid() },
        body: { serviceUserId: 'm1', eventPoints: points },
      });
    await one(1);
    await one(50); // refused by the policy (422)
    await call('POST', '/batch/points', { token: jwt, body: { awards: [award('q1', 'm1', 1), award('q1', 'm1', 1)] } }); // ok, then rate limited
    const res = await call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(text).toContain('qp_relay_awards_total{outcome="ok"} 2');
    expect(text).toContain('qp_relay_awards_total{outcome="refused"} 1');
    expect(text).toContain('qp_relay_awards_total{outcome="rate_limited"} 1');
    expect(text).toContain('qp_relay_rate_limited_total{limit="perPlayer"} 1');
    expect(text).toContain('qp_relay_upstream_duration_seconds_count{method="POST",result="2xx"} 2');
    expect(text).toContain('qp_relay_requests_in_flight 1'); // this very request
    expect(text).toMatch(/qp_relay_requests_total\{status="2xx"\} 2/);
    // Its own registry: nothing from prom-client's global default metrics, and a second relay counts apart.
    expect(text).not.toContain('process_cpu');
    const other = await fakeRelay({ metrics: await createPrometheusMetrics() }).call('GET', '/metrics');
    expect(other.text).toContain('qp_relay_awards_total{outcome="ok"} 0');
  });

  it('with metricsToken, /metrics needs it as a bearer token', async () => {
    const { call } = fakeRelay({ metricsToken: 'metrics-token-0123456789', metrics: await createPrometheusMetrics() });
    expect((await call('GET', '/metrics')).status).toBe(401);
    const wrong = await call('GET', '/metrics', { headers: { authorization: 'Bearer nope' } });
    expect([wrong.status, wrong.json]).toEqual([401, { success: false, message: 'metrics token invalid' }]);
    expect((await call('GET', '/metrics', { headers: { authorization: 'Bearer metrics-token-0123456789' } })).status).toBe(200);
    expect((await call('GET', '/healthz')).status).toBe(200);
  });
});

describe('metrics sink', () => {
  it('createRelay counts nothing by default: GET /metrics answers 404 saying why', async () => {
    const res = await fakeRelay().call('GET', '/metrics');
    expect([res.status, res.json]).toEqual([
      404,
      { success: false, message: 'no metrics on this relay: it was created without a Prometheus metrics sink' },
    ]);
  });

  // Issue 21 bug 2: metrics.ts had a status table of its own that called 425 final ('rejected') while the batch
  // result (the protocol's table) says retry. The label now comes from the batch result.
  it('labels each award with its batch result outcome, whatever the service answered (425 is retry)', async () => {
    const labels: AwardLabel[] = [];
    const sink: MetricsSink = { award: (label) => labels.push(label), limited() {}, storeError() {}, request() {}, inFlight() {}, upstream() {} };
    const statuses = [200, 400, 404, 408, 409, 422, 425, 429, 500, 503];
    const { call } = fakeRelay({
      metrics: sink,
      upstream: { retries: 0 },
      reply: (request) => {
        const status = Number((request.body as { eventPoints: number }).eventPoints);
        return Response.json(status < 300 ? { success: true } : { success: false, message: 'no' }, { status });
      },
    });
    // An admin may award several players: one lane each, so every award is sent (none held behind a retry).
    const jwt = await token({ sub: 'm1', role: 'admin' });
    const batch = await call('POST', '/batch/points', { token: jwt, body: { awards: statuses.map((status) => award('q1', `m${status}`, status)) } });
    expect(batch.status).toBe(200);
    const outcomes = (batch.json.results as { outcome: string }[]).map((result) => result.outcome);
    expect(outcomes[statuses.indexOf(425)]).toBe('retry');
    expect(labels).toEqual(outcomes);
    // The single route counts by the same rule.
    labels.length = 0;
    const single = await call('POST', '/group-quests/q1/points', {
      token: jwt,
      headers: { IDEMPOTENCY_KEY: uuid() },
      body: { serviceUserId: 'm1', eventPoints: 425 },
    });
    expect(single.status).toBe(425);
    expect(labels).toEqual(['retry']);
  });
});

describe('request ids', () => {
  it('keeps a well-formed X-Request-Id, replaces a malformed or overlong one, and logs it', async () => {
    const { call, logs } = fakeRelay();
    const kept = await call('GET', '/nowhere', { headers: { 'x-request-id': 'lb-7f3a9c' } });
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a9c');
    for (const bad of ['has space', 'a'.repeat(65), '<script>', 'semi;colon']) {
      const res = await call('GET', '/nowhere', { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(logs[0]!.requestId).toBe('lb-7f3a9c');
  });
});

describe('bounded tokens over HTTP', () => {
  const key = new TextEncoder().encode(SECRET);
  const now = () => Math.floor(Date.now() / 1000);
  const jwt = (iat: number, exp: number) =>
    new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setIssuedAt(iat).setExpirationTime(exp).sign(key);

  it.each([
    [
      'exp 100 years ahead',
      () => jwt(now(), now() + 100 * 365 * 86_400),
      "token lifetime (exp - iat) must be at most 3600 s (the relay's maxTokenAgeSeconds)",
    ],
    ['exp 1e308', () => jwt(now(), 1e308), "token lifetime (exp - iat) must be at most 3600 s (the relay's maxTokenAgeSeconds)"],
    ['iat a year ahead', () => jwt(now() + 365 * 86_400, now() + 365 * 86_400 + 60), 'token claim iat invalid: in the future'],
    [
      'no iat',
      () => new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime('5m').sign(key),
      'token claim iat invalid: missing',
    ],
  ])('%s -> 401', async (_, make, message) => {
    const { call } = fakeRelay();
    const res = await call('GET', '/group-quests/q/points/u1', { token: await make() });
    expect([res.status, res.json]).toEqual([401, { success: false, message }]);
  });

  it('maxTokenAgeSeconds is an option', async () => {
    const { call } = fakeRelay({ maxTokenAgeSeconds: 60 });
    expect((await call('GET', '/group-quests/q/points/u1', { token: await jwt(now(), now() + 61) })).status).toBe(401);
    expect((await call('GET', '/group-quests/q/points/u1', { token: await jwt(now(), now() + 60) })).status).toBe(200);
  });
});

describe('startRelay on Node', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((relay) => relay.close()));
  });

  it('cuts off a client sending its body at 1 byte per second once requestTimeoutMs has passed', async () => {
    const relay = await startRelay({
      port: 0,
      secret: SECRET,
      keySecret: KEY_SECRET,
      upstream: { url: 'http://service.test', apiKey: API_KEY },
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
    });
    running.push(relay);
    const socket = connect(relay.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => undefined);
    const started = performance.now();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
    socket.write(
      `POST /batch/points HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${await token({ sub: 'slow' })}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`,
    );
    const timer = setInterval(() => socket.destroyed || socket.write('{'), 1_000);
    const afterMs = await closed;
    clearInterval(timer);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(1_900);
    expect(afterMs).toBeLessThan(5_000);
  });

  it('close() finishes an award in flight and turns /readyz to 503 meanwhile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const atService = new Promise<void>((resolve) => (reached = resolve));
    const relay = await startRelay({
      port: 0,
      secret: SECRET,
      keySecret: KEY_SECRET,
      policy: { allowUnknownEvents: true },
      upstream: {
        url: 'http://service.test',
        apiKey: API_KEY,
        fetch: async (request) => {
          if (request.method === 'POST') {
            reached();
            await gate;
          }
          return Response.json({ success: true });
        },
      },
    });
    const call = caller(relay.url);
    const inFlight = call('POST', '/group-quests/q1/points', {
      token: await token({ sub: 'u1' }),
      headers: { IDEMPOTENCY_KEY: uuid() },
      body: { serviceUserId: 'u1', eventPoints: 1 },
    });
    await atService;
    let closed = false;
    const closing = relay.close().then(() => (closed = true));
    // Closing: new connections are refused (once the listener has taken what the kernel had queued: a poll later),
    // yet close() waits for the award in flight.
    await until(
      () =>
        fetch(`${relay.url}/healthz`).then(
          () => false,
          () => true,
        ),
      'new connections refused',
    );
    expect(closed).toBe(false);
    release();
    expect((await inFlight).status).toBe(200);
    await closing;
    await expect(fetch(`${relay.url}/healthz`)).rejects.toThrow();
  });
});
