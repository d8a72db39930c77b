// Graceful shutdown as an operator meets it: the relay started with the CLI, SIGTERM with 100 batch requests in
// flight. Every one is answered (ok, or retry for the SDK to resend), none is cut, /readyz answers 503 on a
// connection that was open before the signal while those requests still run, and the process exits 0 within the
// documented grace (--shutdown-grace, 10 s by default).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { signPlayerToken } from '../../src/relay/index.js';
import { API_KEY, SECRET } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const IN_FLIGHT = 100;
const AWARDS_PER_BATCH = 3;
/** docs/relay.md "Shutdown": in-flight requests get --shutdown-grace, 10 s by default. */
const DOCUMENTED_GRACE_MS = 10_000;
/** Each service call takes this long, so a batch of one player's 3 awards (sent in order) takes about 3 x. */
const SERVICE_LATENCY_MS = 700;

let emulator: RunningEmulator | undefined;
const children: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await emulator?.close();
  emulator = undefined;
});

/** One HTTP/1.1 connection: requests written on it are answered in order; `answers` holds the status lines. */
async function probeConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let raw = '';
  /** When each chunk arrived (performance.now()), to tell when an answer came. */
  const arrivals: { at: number; length: number }[] = [];
  socket.on('data', (chunk) => {
    raw += chunk;
    arrivals.push({ at: performance.now(), length: raw.length });
  });
  socket.on('error', () => {});
  return {
    send: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nhost: relay\r\n\r\n`),
    answers: () =>
      [...raw.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n[\s\S]*?\r\n\r\n(\{[^\r]*?\})(?=HTTP|$)/g)].map((m) => ({
        status: Number(m[1]),
        body: m[2]!,
        at: arrivals.find((a) => a.length >= m.index! + m[0].length)!.at,
      })),
    close: () => socket.destroy(),
  };
}

const count = (values: string[]) => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

describe('graceful shutdown (CLI relay, SIGTERM)', () => {
  it(`answers all ${IN_FLIGHT} batch requests in flight, none cut, /readyz 503 first, exit 0 within the grace`, { timeout: 60_000 }, async () => {
    emulator = await startEmulator({ host: '127.0.0.1', port: 0, apiKeys: [API_KEY], faults: { latencyMs: SERVICE_LATENCY_MS } });
    const relay = spawn(process.execPath, ['--import', 'tsx', CLI, 'relay', '--port', '0', '--upstream', emulator.url], {
      env: { PATH: process.env.PATH, QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(relay);
    relay.stderr!.resume();
    let stdout = '';
    relay.stdout!.on('data', (chunk) => (stdout += chunk));
    const url = (await until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1], 'the relay to listen', 30_000))!;
    const port = Number(new URL(url).port);

    // 100 players (the relay sends one player's awards one after the other, distinct players side by side).
    const tokens = await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => signPlayerToken({ sub: `p${i}` }, { secret: SECRET, ttl: '5m' })));
    const sent = tokens.map((token, i) =>
      fetch(`${url}/batch/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          awards: Array.from({ length: AWARDS_PER_BATCH }, () => ({ questId: 'q1', serviceUserId: `p${i}`, eventPoints: 1, idempotencyKey: crypto.randomUUID() })),
        }),
      }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as { results?: { outcome: string }[] }, at: performance.now() }),
        (error: Error) => ({ status: 0, error: String(error.cause ?? error.message), body: {} as { results?: { outcome: string }[] }, at: performance.now() }),
      ),
    );
    const inFlight = async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return Number(/^qp_relay_requests_in_flight (\d+)/m.exec(text)?.[1] ?? 0);
    };
    // The metrics request counts itself.
    await until(async () => (await inFlight()) >= IN_FLIGHT + 1, `${IN_FLIGHT} batch requests in flight`, 20_000);
    // A balancer's health-check connection, busy with a probe (the relay asks the service) when the signal comes.
    const probe = await probeConnection(port);
    probe.send('/readyz');
    await until(async () => (await inFlight()) >= IN_FLIGHT + 2, 'the probe in flight', 5_000, 10);

    const signalled = performance.now();
    const exited = once(relay, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    relay.kill('SIGTERM');
    // The signal is handled: new connections are refused from now on (a balancer sends them to the next relay) ...
    await until(
      () => fetch(`${url}/healthz`).then(() => false, () => true),
      'new connections refused',
      5_000,
      20,
    );
    // ... and readiness already says so on the connection that stayed open.
    probe.send('/readyz');
    const answers = await Promise.all(sent);
    const answeredMs = Math.max(...answers.map((a) => a.at)) - signalled;
    const [code, signal] = await exited;
    const exitMs = performance.now() - signalled;
    const readiness = probe.answers();
    probe.close();

    const outcomes = count(answers.flatMap((a) => (a.body.results ?? []).map((r) => r.outcome)));
    console.log(
      `graceful shutdown: ${IN_FLIGHT} batches (${IN_FLIGHT * AWARDS_PER_BATCH} awards) in flight at SIGTERM; statuses ` +
        `${JSON.stringify(count(answers.map((a) => String(a.status))))}, ` +
        `outcomes ${JSON.stringify(outcomes)}; readiness 503 ${Math.round((readiness[1]?.at ?? signalled) - signalled)} ms, last answer ${Math.round(answeredMs)} ms and exit ${code} ${Math.round(exitMs)} ms after SIGTERM; ` +
        `readiness on the open connection: ${readiness.map((r) => r.status).join(', ')}`,
    );
    // Every request answered whole: 200 with one result per award, each ok or retry; nothing cut.
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.every((a) => a.body.results?.length === AWARDS_PER_BATCH)).toBe(true);
    expect(Object.keys(outcomes).filter((o) => o !== 'ok' && o !== 'retry')).toEqual([]);
    expect((outcomes.ok ?? 0) + (outcomes.retry ?? 0)).toBe(IN_FLIGHT * AWARDS_PER_BATCH);
    expect([code, signal]).toEqual([0, null]);
    expect(exitMs).toBeLessThan(DOCUMENTED_GRACE_MS);
    // The probe sent before the signal, then the one sent after it: 503 "shutting down" while the batches still ran.
    expect(readiness.map((r) => r.status)).toEqual([200, 503]);
    expect(JSON.parse(readiness[1]!.body).message).toBe('not ready: shutting down');
    expect(readiness[1]!.at, 'readiness said 503 before the last batch was answered').toBeLessThan(Math.max(...answers.map((a) => a.at)));
  });
});
