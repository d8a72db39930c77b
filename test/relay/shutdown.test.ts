// Graceful shutdown as an operator meets it: the relay started with the CLI (--drain-delay 3000), SIGTERM with 100
// batch requests in flight. /readyz answers 503 at once while the relay still accepts connections (a balancer's
// health check takes it out of rotation), then new connections are refused; every request in flight is answered
// (ok, or retry for the SDK to resend), none is cut, and the process exits 0 within the documented grace
// (--shutdown-grace, 10 s by default, after the drain delay).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { signPlayerToken } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const IN_FLIGHT = 100;
const AWARDS_PER_BATCH = 3;
/** docs/relay.md "Shutdown": in-flight requests get --shutdown-grace, 10 s by default. */
const DOCUMENTED_GRACE_MS = 10_000;
/** Each service call takes this long, so a batch of one player's 3 awards (sent in order) takes about 3 x. */
const SERVICE_LATENCY_MS = 1_000;
/**
 * Longer than a /readyz round trip can take on a loaded CI machine: with 1,000 ms, one probe sent before the relay
 * handled the signal was answered 200 after 1,172 ms, the next was already refused, and the 503 window went unseen.
 */
const DRAIN_DELAY_MS = 3_000;

let emulator: RunningEmulator | undefined;
const children: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await emulator?.close();
  emulator = undefined;
});

const count = (values: string[]) => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

describe('graceful shutdown (CLI relay, SIGTERM)', () => {
  it(`answers all ${IN_FLIGHT} batch requests in flight, none cut, /readyz 503 first, exit 0 within the grace`, { timeout: 60_000 }, async () => {
    emulator = await startEmulator({ host: '127.0.0.1', port: 0, apiKeys: [API_KEY], faults: { latencyMs: SERVICE_LATENCY_MS } });
    const relay = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'relay', '--port', '0', '--upstream', emulator.url, '--drain-delay', String(DRAIN_DELAY_MS)],
      {
        env: { PATH: process.env.PATH, QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET, QP_KEY_SECRET: KEY_SECRET },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(relay);
    relay.stderr!.resume();
    let stdout = '';
    relay.stdout!.on('data', (chunk) => (stdout += chunk));
    const url = (await until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1], 'the relay to listen', 30_000))!;

    // 100 players (the relay sends one player's awards one after the other, distinct players side by side).
    const tokens = await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => signPlayerToken({ sub: `p${i}` }, { secret: SECRET, ttl: '5m' })));
    const sent = tokens.map((token, i) =>
      fetch(`${url}/batch/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          awards: Array.from({ length: AWARDS_PER_BATCH }, () => ({
            questId: 'q1',
            serviceUserId: `p${i}`,
            eventPoints: 1,
            idempotencyKey: crypto.randomUUID(),
          })),
        }),
      }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as { results?: { outcome: string }[] }, at: performance.now() }),
        (error: Error) => ({
          status: 0,
          error: String(error.cause ?? error.message),
          body: {} as { results?: { outcome: string }[] },
          at: performance.now(),
        }),
      ),
    );
    const inFlight = async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return Number(/^qp_relay_requests_in_flight (\d+)/m.exec(text)?.[1] ?? 0);
    };
    // The metrics request counts itself.
    await until(async () => (await inFlight()) >= IN_FLIGHT + 1, `${IN_FLIGHT} batch requests in flight`, 20_000);

    const signalled = performance.now();
    const exited = once(relay, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    relay.kill('SIGTERM');
    // A balancer's health check: readiness says 503 first, while the relay still takes connections ...
    const readiness: { status: number; message: string; at: number }[] = [];
    await until(
      async () => {
        const answer = await fetch(`${url}/readyz`).then(
          async (res) => ({ status: res.status, message: ((await res.json()) as { message?: string }).message ?? '', at: performance.now() }),
          () => ({ status: 0, message: 'refused', at: performance.now() }),
        );
        if (readiness.at(-1)?.status !== answer.status) readiness.push(answer);
        return answer.status === 0;
      },
      'new connections refused',
      DRAIN_DELAY_MS + 5_000,
      20,
    );
    const answers = await Promise.all(sent);
    const answeredMs = Math.max(...answers.map((a) => a.at)) - signalled;
    const [code, signal] = await exited;
    const exitMs = performance.now() - signalled;

    const outcomes = count(answers.flatMap((a) => (a.body.results ?? []).map((r) => r.outcome)));
    console.log(
      `graceful shutdown: ${IN_FLIGHT} batches (${IN_FLIGHT * AWARDS_PER_BATCH} awards) in flight at SIGTERM; statuses ` +
        `${JSON.stringify(count(answers.map((a) => String(a.status))))}, ` +
        `outcomes ${JSON.stringify(outcomes)}; readiness 503 ${Math.round((readiness[0]?.at ?? signalled) - signalled)} ms, refused ${Math.round((readiness[1]?.at ?? signalled) - signalled)} ms, last answer ${Math.round(answeredMs)} ms and exit ${code} ${Math.round(exitMs)} ms after SIGTERM; ` +
        `readiness: ${readiness.map((r) => r.status || 'refused').join(', ')}`,
    );
    // Every request answered whole: 200 with one result per award, each ok or retry; nothing cut.
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.every((a) => a.body.results?.length === AWARDS_PER_BATCH)).toBe(true);
    expect(Object.keys(outcomes).filter((o) => o !== 'ok' && o !== 'retry')).toEqual([]);
    expect((outcomes.ok ?? 0) + (outcomes.retry ?? 0)).toBe(IN_FLIGHT * AWARDS_PER_BATCH);
    expect([code, signal]).toEqual([0, null]);
    expect(exitMs).toBeLessThan(DRAIN_DELAY_MS + DOCUMENTED_GRACE_MS);
    // Readiness: 503 "shutting down" from the signal on (a probe may beat the signal's delivery), for the drain
    // delay, before any connection was refused.
    if (readiness[0]?.status === 200) readiness.shift();
    expect(readiness.map((r) => r.status)).toEqual([503, 0]);
    expect(readiness[0]!.message).toBe('not ready: shutting down');
    expect(readiness[1]!.at - signalled).toBeGreaterThanOrEqual(DRAIN_DELAY_MS * 0.9);
    expect(readiness[0]!.at, 'readiness said 503 before the last batch was answered').toBeLessThan(Math.max(...answers.map((a) => a.at)));
  });
});
