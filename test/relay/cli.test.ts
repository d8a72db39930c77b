import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { secretKey, signPlayerToken, verifyPlayerToken } from '../../src/relay/token.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';

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
      [
        'token',
        '--sub',
        'alice',
        '--role',
        'admin',
        '--ttl',
        '10m',
        '--quest',
        'q1',
        '--quest',
        'q2',
        '--email',
        'a@example.com',
        '--wallet',
        'eip155:1:0xabc',
      ],
      { QP_RELAY_SECRET: SECRET },
    ).exited();
    expect(code).toBe(0);
    const checked = await verifyPlayerToken(stdout.trim(), secretKey(SECRET));
    expect(checked).toEqual({
      ok: true,
      claims: { sub: 'alice', role: 'admin', quests: ['q1', 'q2'], email: 'a@example.com', wallet: { chain: 'eip155:1', address: '0xabc' } },
      exp: expect.any(Number),
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
        QP_KEY_SECRET: KEY_SECRET,
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
      expect(
        stderr
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).status),
      ).toEqual([401, 404]);
      expect(stderr).not.toContain(API_KEY);
      expect(stderr).not.toContain(token);
    } finally {
      await emulator.close();
    }
  });

  it('serves /healthz and /metrics, and exits 0 on SIGTERM', async () => {
    const relay = run(
      [
        'relay',
        '--port',
        '0',
        '--upstream',
        'http://127.0.0.1:9',
        '--request-timeout',
        '5000',
        '--max-connections',
        '50',
        '--shutdown-grace',
        '1000',
      ],
      {
        QP_API_KEY: API_KEY,
        QP_RELAY_SECRET: SECRET,
        QP_KEY_SECRET: KEY_SECRET,
        QP_METRICS_TOKEN: 'metrics-secret-token-123',
      },
    );
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
        QP_KEY_SECRET: KEY_SECRET,
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

  it('accepts QP_RELAY_SECRET_PREVIOUS tokens during a rotation; token signs with QP_RELAY_SECRET', async () => {
    const NEXT = 'the-next-relay-secret-0123456789abcdef-012345';
    const relay = run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:9', '--token-cache-size', '0'], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: NEXT,
      QP_RELAY_SECRET_PREVIOUS: SECRET,
      QP_KEY_SECRET: KEY_SECRET,
    });
    const [, url] = await relay.line(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const signed = (await run(['token', '--sub', 'alice'], { QP_RELAY_SECRET: NEXT, QP_RELAY_SECRET_PREVIOUS: SECRET }).exited()).stdout.trim();
    expect((await verifyPlayerToken(signed, secretKey(NEXT))).ok).toBe(true);
    const old = await signPlayerToken({ sub: 'alice' }, { secret: SECRET });
    const forged = await signPlayerToken({ sub: 'alice' }, { secret: 'a-secret-this-relay-never-had-0123456789abc' });
    // No service listens at the upstream: 502 means the token passed and the relay tried, 401 that it did not.
    const status = async (jwt: string) => (await fetch(`${url}/group-quests/q/points/alice`, { headers: { authorization: `Bearer ${jwt}` } })).status;
    expect([await status(signed), await status(old), await status(forged)]).toEqual([502, 502, 401]);
    relay.child.kill('SIGTERM');
    expect((await relay.exited()).code).toBe(0);
  });

  it.each([
    [
      ['--jwks-url', 'https://login.example/jwks.json', '--jwt-audience', 'qp'],
      'quest-points relay: jwks.issuer (QP_JWT_ISSUER) is required with a JWKS: tokens of every other issuer must be refused',
    ],
    [
      ['--jwks-url', 'http://login.example/jwks.json', '--jwt-issuer', 'i', '--jwt-audience', 'qp'],
      'quest-points relay: jwks.url (QP_JWKS_URL) must be https: (http: only on a loopback host)',
    ],
    [['--token-cache-size', 'lots'], 'quest-points relay: --token-cache-size must be a whole number (0 turns the cache off), got "lots"'],
    [['--deadline', '0'], 'quest-points relay: --deadline must be a positive integer, got "0"'],
    [
      ['--redis', 'http://127.0.0.1:6379'],
      'quest-points relay: Redis URL must start with redis:// or rediss:// (one server), or redis+cluster:// or rediss+cluster:// (a Redis Cluster)',
    ],
    [['--redis', 'redis+cluster://10.0.0.5'], 'quest-points relay: a redis+cluster:// URL lists its nodes as host:port, separated by commas'],
    [['--on-store-error', 'maybe'], 'quest-points relay: --on-store-error must be closed or open, got "maybe"'],
    [['--max-token-age', 'soon'], 'quest-points relay: --max-token-age must be a positive integer, got "soon"'],
    [['--request-timeout', '0'], 'quest-points relay: --request-timeout must be a positive integer, got "0"'],
    [['--headers-timeout', '9000', '--request-timeout', '1000'], 'quest-points relay: headersTimeoutMs must not exceed requestTimeoutMs'],
    [['--port', '70000'], 'quest-points relay: --port must be an integer from 0 to 65535'],
    [['--forwarded-header', 'x-real-ip'], 'quest-points relay: --forwarded-header must be x-forwarded-for or forwarded, got "x-real-ip"'],
    [['--upstream-connections', '0'], 'quest-points relay: --upstream-connections must be a positive integer, got "0"'],
    [['--log-level', 'loud'], 'quest-points relay: --log-level must be one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
  ])('refuses %j with one line naming it, exit 2', async (flags, message) => {
    const out = await run(['relay', '--upstream', 'http://127.0.0.1:9', '--port', '0', ...flags], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
      QP_KEY_SECRET: KEY_SECRET,
    }).exited();
    expect(out.code).toBe(2);
    expect(out.stderr.split('\n')[0]).toBe(message);
  });

  it('refuses to start without its secrets in the environment', async () => {
    const noKey = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], {
      QP_RELAY_SECRET: SECRET,
      QP_KEY_SECRET: KEY_SECRET,
    }).exited();
    expect([noKey.code, noKey.stdout]).toEqual([2, '']);
    expect(noKey.stderr).toContain('QP_API_KEY is not set');
    const noSecret = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], {
      QP_API_KEY: API_KEY,
      QP_KEY_SECRET: KEY_SECRET,
    }).exited();
    expect(noSecret.stderr).toContain('QP_RELAY_SECRET is not set');
    const weak = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: 'short',
      QP_KEY_SECRET: KEY_SECRET,
    }).exited();
    expect(weak.stderr).toContain('at least 32 characters');
    const badPolicy = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1', '--policy', '/nonexistent.json'], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
      QP_KEY_SECRET: KEY_SECRET,
    }).exited();
    expect(badPolicy.stderr).toContain('policy file /nonexistent.json: cannot be read (ENOENT)');
    for (const out of [noKey, noSecret, weak, badPolicy]) {
      expect(out.stderr).not.toContain(API_KEY);
      expect(out.stderr).not.toContain(SECRET);
    }
  });

  it('refuses to start without QP_KEY_SECRET: one line naming it and the migration that keeps every upstream key', async () => {
    const noKeySecret = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
    }).exited();
    expect([noKeySecret.code, noKeySecret.stdout]).toEqual([2, '']);
    expect(noKeySecret.stderr.trim().split('\n')).toEqual([
      'quest-points relay: QP_KEY_SECRET (keySecret) is not set: it names upstream idempotency keys and never rotates. Upgrading? Set QP_KEY_SECRET to your current QP_RELAY_SECRET to keep every upstream key (your QP_API_KEY if you used authenticate() without a relay secret).',
    ]);
    const weakKey = await run(['relay', '--port', '0', '--upstream', 'http://127.0.0.1:1'], {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
      QP_KEY_SECRET: 'short',
    }).exited();
    expect(weakKey.stderr.trim()).toBe('quest-points relay: QP_KEY_SECRET (keySecret) must be at least 32 characters');
    for (const out of [noKeySecret, weakKey]) {
      expect(out.stderr).not.toContain(API_KEY);
      expect(out.stderr).not.toContain(SECRET);
    }
  });
});
