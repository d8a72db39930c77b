// The deployment examples of docs/relay.md (examples/relay-*/), run as written: each server file is started on its
// runtime, takes single awards and a batch to a real emulator, and writes its access log within a second. The docs
// show these files verbatim (checked here too).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { awardsGoThrough, bin, httpClient, limitedPolicy, runtimeBinary, startServerProcess, type ServerProcess } from './harness.js';

const EXAMPLES = {
  'relay-node': () => [bin('tsx'), ['examples/relay-node/server.ts']],
  'relay-bun': () => [runtimeBinary('bun'), ['examples/relay-bun/server.ts']],
  'relay-hono-node': () => [bin('tsx'), ['examples/relay-hono-node/server.ts']],
  'relay-express': () => [bin('tsx'), ['examples/relay-express/server.ts']],
  'relay-fastify': () => [bin('tsx'), ['examples/relay-fastify/server.ts']],
} as const satisfies Record<string, () => readonly [string, string[]]>;

let emulator: RunningEmulator;
let dir: string;
const servers: ServerProcess[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: [API_KEY] });
  dir = await mkdtemp(join(tmpdir(), 'qp-examples-'));
  await writeFile(join(dir, 'quest-policy.json'), JSON.stringify(limitedPolicy(50)));
}, 20_000);
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
}, 20_000);

describe('deployment examples (examples/relay-*)', { timeout: 60_000 }, () => {
  for (const [name, command] of Object.entries(EXAMPLES)) {
    it(`${name}: awards and a batch reach the emulator, the access log is written while it runs, docs show the file`, async () => {
      const [binary, args] = command();
      const server = await startServerProcess(binary, args, {
        PORT: '0',
        QP_UPSTREAM_URL: emulator.url,
        QP_API_KEY: API_KEY,
        QP_RELAY_SECRET: SECRET,
        QP_KEY_SECRET: KEY_SECRET,
        QP_POLICY_FILE: join(dir, 'quest-policy.json'),
      });
      servers.push(server);
      await awardsGoThrough(httpClient(server.url));
      if (server.url.endsWith('/qp')) {
        // Mounted in the game's own server: the game's route answers beside it, the relay's /healthz under the mount.
        const game = await fetch(`${server.url.slice(0, -'/qp'.length)}/api/health`);
        expect([game.status, await game.json()]).toEqual([200, { game: 'ok' }]);
        const health = await fetch(`${server.url}/healthz`);
        expect([health.status, await health.json()]).toEqual([200, { success: true, data: { status: 'ok' } }]);
      }
      await until(() => /"msg":"request"/.test(server.output()), `${name}: an access log line on stderr`, 3_000, 20);
      const source = await readFile(`examples/${name}/server.ts`, 'utf8');
      const docs = await readFile('docs/relay.md', 'utf8');
      expect(docs.includes(`\`\`\`ts\n${source}\`\`\``), `docs/relay.md shows examples/${name}/server.ts verbatim`).toBe(true);
    });
  }
});
