import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { secretKey, signPlayerToken, verifyPlayerToken } from '../../src/relay/token.js';
import { API_KEY, SECRET } from '../helpers/fixtures.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

function run(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return {
    child,
    output: () => ({ stdout, stderr }),
    exited: async () => {
      const [code] = child.exitCode === null ? await once(child, 'exit') : [child.exitCode];
      return { code, stdout, stderr };
    },
    line: (pattern: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const match = stdout.match(pattern);
          if (match) resolve(match);
        };
        child.stdout.on('data', check);
        child.on('exit', () => reject(new Error(`exited before ${pattern}: ${stderr}`)));
      }),
  };
}

describe('quest-points token', () => {
  it('prints a token signed with QP_RELAY_SECRET carrying the given claims', async () => {
    const { code, stdout } = await run(
      ['token', '--sub', 'alice', '--role', 'admin', '--ttl', '10m', '--quest', 'q1', '--quest', 'q2', '--email', 'a@example.com', '--wallet', 'eip155:1:0xabc'],
      { QP_RELAY_SECRET: SECRET },
    ).exited();
    expect(code).toBe(0);
    const checked = await verifyPlayerToken(stdout.trim(), secretKey(SECRET));
    expect(checked).toEqual({
      ok: true,
      claims: { sub: 'alice', role: 'admin', quests: ['q1', 'q2'], email: 'a@example.com', wallet: { chain: 'eip155:1', address: '0xabc' } },
    });
  });

  it('refuses a --ttl longer than the relay accepts, with one clear line', async () => {
    const long = await run(['token', '--sub', 'alice', '--ttl', '2h'], { QP_RELAY_SECRET: SECRET }).exited();
    expect([long.code, long.stdout]).toEqual([2, '']);
    expect(long.stderr).toContain('quest-points token: --ttl "2h" is longer than maxTokenAgeSeconds 3600: the relay would refuse the token');
    const allowed = await run(['token', '--sub', 'alice', '--ttl', '2h', '--max-token-age', '7200'], { QP_RELAY_SECRET: SECRET }).exited();
    expect(allowed.code).toBe(0);
  });

  it('refuses without the secret or --sub', async () => {
    const noSecret = await run(['token', '--sub', 'alice'], {}).exited();
    expect([noSecret.code, noSecret.stdout]).toEqual([2, '']);
    expect(noSecret.stderr).toContain('QP_RELAY_SECRET is not set');
    const noSub = await run(['token'], { QP_RELAY_SECRET: SECRET }).exited();
    expect(noSub.code).toBe(2);
    expect(noSub.stderr).toContain('--sub is required');
  });
});

describe('quest-points relay', () => {
  it('starts on a free port, prints where it listens and proxies to the service', async () => {
    const emulator = await startEmulator({ host: '127.0.0.1', port: 0, apiKeys: [API_KEY] });
    try {
      const relay = run(['relay', '--port', '0', '--upstream', emulator.url, '--cors-origin', 'https://game.example.com'], {
        QP_API_KEY: API_KEY,
        QP_RELAY_SECRET: SECRET,
      });
      const [, url] = await relay.line(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const res = await fetch(`${url}/group-quests/q1/enrolled-users/nobody`);
      expect(res.status).toBe(401);
      const token = (await run(['token', '--sub', 'nobody'], { QP_RELAY_SECRET: SECRET }).exited()).stdout.trim();
      const read = await fetch(`${url}/group-quests/q1/enrolled-users/nobody`, { headers: { authorization: `Bearer ${token}` } });
      expect([read.status, await read.json()]).toEqual([404, { success: false, message: 'User is not enrolled in the quest' }]);
      relay.child.kill('SIGTERM');
      const { stderr } = await relay.exited();
      // Logs are JSON lines on stderr, without the key or the token.
      expect(stderr.trim().split('\n').map((line) => JSON.parse(line).status)).toEqual([401, 404]);
      expect(stderr).not.toContain(API_KEY);
      expect(stderr).not.toContain(token);
    } finally {
      await emulator.close();
    }
  });

  it('serves /healthz and /metrics, and exits 0 on SIGTERM', async () => {
    const relay = run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:9', '--request-timeout', '5000', '--max-connections', '50', '--shutdown-grace', '1000'], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
      QP_METRICS_TOKEN: 'metrics-secret-token-123',
    });
    const [, url] = await relay.line(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer metrics-secret-token-123' } });
    expect(await metrics.text()).toContain('qp_relay_requests_in_flight 1');
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).message).toMatch(/^not ready: service: Quest Points Service unreachable \(/);
    relay.child.kill('SIGTERM');
    const { code, stderr } = await relay.exited();
    expect(code).toBe(0);
    expect(stderr).not.toContain('metrics-secret-token-123');
  });

  it('--deadline bounds an award the service never answers: 504, for the SDK to resend with the same key', async () => {
    // A service that takes the request and never answers.
    const frozen = createServer(() => {});
    await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
    try {
      const relay = run(['relay', '--port', '0', '--upstream', `http://127.0.0.1:${(frozen.address() as AddressInfo).port}`, '--deadline', '300'], {
        QP_API_KEY: API_KEY,
        QP_RELAY_SECRET: SECRET,
      });
      const [, url] = await relay.line(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const token = await signPlayerToken({ sub: 'frozen-player' }, { secret: SECRET, ttl: '5m' });
      const res = await fetch(`${url}/group-quests/q1/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: 'frozen-player', eventPoints: 5 }),
        // Half the default deadline: only --deadline can have the relay answer before this gives up.
        signal: AbortSignal.timeout(4000),
      });
      expect(res.status).toBe(504);
      expect((await res.json()).message).toBe('Quest Points Service was not waited for (deadline passed or client gone)');
      relay.child.kill('SIGTERM');
      expect((await relay.exited()).code).toBe(0);
    } finally {
      frozen.closeAllConnections();
      await new Promise((resolve) => frozen.close(resolve));
    }
  });

  it.each([
    [['--deadline', '0'], 'quest-points relay: --deadline must be a positive integer, got "0"'],
    [['--redis', 'http://127.0.0.1:6379'], 'quest-points relay: Redis URL must start with redis:// or rediss://'],
    [['--on-store-error', 'maybe'], 'quest-points relay: --on-store-error must be closed or open, got "maybe"'],
    [['--max-token-age', 'soon'], 'quest-points relay: --max-token-age must be a positive integer, got "soon"'],
    [['--request-timeout', '0'], 'quest-points relay: --request-timeout must be a positive integer, got "0"'],
    [['--headers-timeout', '9000', '--request-timeout', '1000'], 'quest-points relay: headersTimeoutMs must not exceed requestTimeoutMs'],
    [['--port', '70000'], 'quest-points relay: --port must be an integer from 0 to 65535'],
    [['--forwarded-header', 'x-real-ip'], 'quest-points relay: --forwarded-header must be x-forwarded-for or forwarded, got "x-real-ip"'],
    [['--upstream-connections', '0'], 'quest-points relay: --upstream-connections must be a positive integer, got "0"'],
    [['--log-level', 'loud'], 'quest-points relay: --log-level must be one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
  ])('refuses %j with one line naming it, exit 2', async (flags, message) => {
    const out = await run(['relay', '--upstream', 'http://127.0.0.1:9', '--port', '0', ...flags], { QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET }).exited();
    expect(out.code).toBe(2);
    expect(out.stderr.split('\n')[0]).toBe(message);
  });

  it('refuses to start without its secrets in the environment', async () => {
    const noKey = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], { QP_RELAY_SECRET: SECRET }).exited();
    expect([noKey.code, noKey.stdout]).toEqual([2, '']);
    expect(noKey.stderr).toContain('QP_API_KEY is not set');
    const noSecret = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], { QP_API_KEY: API_KEY }).exited();
    expect(noSecret.stderr).toContain('QP_RELAY_SECRET is not set');
    const weak = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], { QP_API_KEY: API_KEY, QP_RELAY_SECRET: 'short' }).exited();
    expect(weak.stderr).toContain('at least 32 characters');
    const badPolicy = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1', '--policy', '/nonexistent.json'], { QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET }).exited();
    expect(badPolicy.stderr).toContain('policy file /nonexistent.json: cannot be read (ENOENT)');
    for (const out of [noKey, noSecret, weak, badPolicy]) expect(out.stderr).not.toContain(API_KEY);
  });
});
