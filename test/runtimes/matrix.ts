// One runtime's row of the matrix: the relay served by that runtime's own server, with the memory store and with
// Redis, each taking single awards and a batch to a real emulator (Node, in this process); with Redis, two
// instances share one per-player limit.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { awardsGoThrough, httpClient, limitedPolicy, limitIsShared, type ServerProcess } from './harness.js';

const LIMIT = 6;

/**
 * The access log reaches stderr while the server runs, within a second of the request (pino's buffer is flushed every
 * second; Bun's stream used to write it only at exit). 3 s allowed: the CI machine is slow.
 */
async function accessLogged(server: ServerProcess): Promise<void> {
  const started = performance.now();
  await until(() => /"msg":"request"/.test(server.output()), 'an access log line on stderr', 3_000, 20);
  console.log(`access log line after ${Math.round(performance.now() - started)} ms`);
}

type Launch = (env: Record<string, string>) => Promise<ServerProcess>;

/**
 * `launch` starts the runtime's one-file server; `launchCli(args, env)`, when given, the package's CLI on that
 * runtime (startRelay through the runtime's node:http).
 */
export function runtimeMatrix(
  runtime: string,
  launch: Launch,
  launchCli?: (args: string[], env: Record<string, string>) => Promise<ServerProcess>,
): void {
  let emulator: RunningEmulator;
  let redis: TestRedis;
  const servers: ServerProcess[] = [];
  const serve = async (env: Record<string, string> = {}) => {
    const server = await launch({
      QP_UPSTREAM_URL: emulator.url,
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
      QP_KEY_SECRET: KEY_SECRET,
      QP_POLICY_JSON: JSON.stringify(limitedPolicy(LIMIT)),
      ...env,
    });
    servers.push(server);
    return server;
  };
  beforeAll(async () => {
    [emulator, redis] = await Promise.all([startEmulator({ port: 0, apiKeys: [API_KEY] }), startRedis()]);
  }, 20_000);
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await Promise.all([emulator?.close(), redis?.stop()]);
  }, 20_000);

  describe(`${runtime}, memory store`, () => {
    it('single awards and a batch reach the emulator', async () => {
      const server = await serve();
      await awardsGoThrough(httpClient(server.url));
      await accessLogged(server);
    });
  });

  if (launchCli) {
    describe(`${runtime}, the CLI (quest-points relay)`, () => {
      it('single awards and a batch reach the emulator', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'qp-runtime-'));
        try {
          await writeFile(join(dir, 'policy.json'), JSON.stringify(limitedPolicy(LIMIT)));
          const server = await launchCli(['relay', '--port', '0', '--upstream', emulator.url, '--policy', join(dir, 'policy.json')], {
            QP_API_KEY: API_KEY,
            QP_RELAY_SECRET: SECRET,
            QP_KEY_SECRET: KEY_SECRET,
          });
          servers.push(server);
          await awardsGoThrough(httpClient(server.url));
          await accessLogged(server);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });
  }

  describe(`${runtime}, Redis store`, () => {
    it('single awards and a batch reach the emulator; two instances share one per-player limit', async () => {
      const [a, b] = await Promise.all([serve({ QP_REDIS_URL: redis.url }), serve({ QP_REDIS_URL: redis.url })]);
      await awardsGoThrough(httpClient(a.url));
      await awardsGoThrough(httpClient(b.url));
      await limitIsShared(httpClient(a.url), httpClient(b.url), LIMIT);
    });
  });
}
