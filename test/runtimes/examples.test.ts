// The deployment examples of docs/relay/deploy.md (examples/relay-*/), run as written: each is started on its runtime, takes
// single awards and a batch to a real emulator, and writes its access log within a second. docs/relay/deploy.md shows each
// file through a snippet marker (<!-- snippet: examples/relay-x/... -->), which test/docs/snippets.test.ts holds equal
// to the file; here each example is checked to be shown at all.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { bundleCore } from './bundle.js';
import {
  awardsGoThrough,
  bin,
  httpClient,
  limitedPolicy,
  playerToken,
  repo,
  runtimeBinary,
  startServerProcess,
  type Client,
  type ServerProcess,
} from './harness.js';

interface Example {
  /** The file docs/relay/deploy.md shows. */
  source: string;
  command(): readonly [string, string[]];
  /** Mounted in the game's own server: the game's /api/health answers beside the relay at `<origin>/qp`. */
  beside?: true;
}

/** Deno as deno.test.ts runs it: the repo's node_modules (Deno installs nothing), Node-style `.js` specifiers. */
const DENO_ARGS = ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', '--sloppy-imports', '--node-modules-dir=manual', '--no-lock'];

const EXAMPLES: Record<string, Example> = {
  'relay-node': { source: 'examples/relay-node/server.ts', command: () => [bin('tsx'), ['examples/relay-node/server.ts']] },
  'relay-bun': { source: 'examples/relay-bun/server.ts', command: () => [runtimeBinary('bun'), ['examples/relay-bun/server.ts']] },
  'relay-deno': {
    source: 'examples/relay-deno/server.ts',
    // server.ts as written; its deno.json maps quest-points/ to the npm package, which a test cannot install (it is
    // this repository): the test's deno.json maps the same specifiers to the sources instead.
    command: () => [runtimeBinary('deno'), [...DENO_ARGS, '--config', join(dir, 'deno.json'), 'examples/relay-deno/server.ts']],
  },
  'relay-hono-node': {
    source: 'examples/relay-hono-node/server.ts',
    command: () => [bin('tsx'), ['examples/relay-hono-node/server.ts']],
    beside: true,
  },
  'relay-express': { source: 'examples/relay-express/server.ts', command: () => [bin('tsx'), ['examples/relay-express/server.ts']], beside: true },
  'relay-fastify': { source: 'examples/relay-fastify/server.ts', command: () => [bin('tsx'), ['examples/relay-fastify/server.ts']], beside: true },
  'relay-nextjs': {
    source: 'examples/relay-nextjs/app/api/qp/[...path]/route.ts',
    // next is not installed here: servers/next-route.ts calls the route module's exports as Next's server does.
    command: () => [bin('tsx'), ['test/runtimes/servers/next-route.ts']],
  },
};

let emulator: RunningEmulator;
let dir: string;
const servers: ServerProcess[] = [];
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: [API_KEY], admin: true });
  dir = await mkdtemp(join(tmpdir(), 'qp-examples-'));
  await writeFile(join(dir, 'quest-policy.json'), JSON.stringify(limitedPolicy(50)));
  const sources = { 'quest-points/relay': `${repo}src/relay/index.ts`, 'quest-points/relay/node': `${repo}src/relay/node/index.ts` };
  const example = JSON.parse(await readFile('examples/relay-deno/deno.json', 'utf8')) as { imports: Record<string, string> };
  expect(Object.keys(example.imports)).toContain('quest-points/');
  await writeFile(join(dir, 'deno.json'), JSON.stringify({ imports: sources }));
}, 20_000);
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
}, 20_000);

describe('deployment examples (examples/relay-*)', { timeout: 60_000 }, () => {
  for (const [name, example] of Object.entries(EXAMPLES)) {
    it(`${name}: awards and a batch reach the emulator, the access log is written while it runs, docs show the file`, async () => {
      const [binary, args] = example.command();
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
      if (example.beside) {
        // Mounted in the game's own server: the game's route answers beside it, the relay's /healthz under the mount.
        const game = await fetch(`${server.url.slice(0, -'/qp'.length)}/api/health`);
        expect([game.status, await game.json()]).toEqual([200, { game: 'ok' }]);
        const health = await fetch(`${server.url}/healthz`);
        expect([health.status, await health.json()]).toEqual([200, { success: true, data: { status: 'ok' } }]);
      }
      await until(() => /"msg":"request"/.test(server.output()), `${name}: an access log line on stderr`, 3_000, 20);
      const docs = await readFile('docs/relay/deploy.md', 'utf8');
      expect(docs, `docs/relay/deploy.md shows ${example.source} (<!-- snippet: ${example.source} -->)`).toContain(
        `<!-- snippet: ${example.source} -->\n`,
      );
    });
  }
});

describe('examples/relay-workers: the Worker on workerd (miniflare), its Durable Objects as wrangler.toml binds them', { timeout: 60_000 }, () => {
  let mf: Miniflare | undefined;
  afterAll(async () => {
    await mf?.dispose();
  });

  it('awards and a batch go through; an award whose service forgot it is answered from the record in the Durable Object', async () => {
    const source = 'examples/relay-workers/src/relay.ts';
    let output = '';
    // What wrangler does with `main` (it bundles it with esbuild); the bundle imports nothing from Node.
    const bundle = await bundleCore(`${repo}${source}`);
    expect(bundle.nodeImports).toEqual([]);
    const toml = await readFile('examples/relay-workers/wrangler.toml', 'utf8');
    const bound = [...toml.matchAll(/name = "(\w+)"\nclass_name = "(\w+)"/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(bound).toEqual([
      ['RATE_LIMITS', 'RateLimitCounter'],
      ['IDEMPOTENCY', 'IdempotencyRecords'],
    ]);
    mf = new Miniflare({
      modules: true,
      script: bundle.code,
      compatibilityDate: /compatibility_date = "([\d-]+)"/.exec(toml)![1]!,
      // [vars] as wrangler.toml has them, the upstream pointed at the emulator; the secrets as `wrangler secret put`.
      bindings: { QP_UPSTREAM_URL: emulator.url, QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET, QP_KEY_SECRET: KEY_SECRET },
      durableObjects: Object.fromEntries(bound),
      // The Worker's console (its access log), kept for the check below.
      handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
        stdout.on('data', (chunk: Buffer) => {
          output += chunk;
        });
        stderr.on('data', (chunk: Buffer) => {
          output += chunk;
        });
      },
    });
    const worker: Client = async (path, init) => {
      const target = (await mf!.getWorker()) as unknown as { fetch(url: string, init: RequestInit): Promise<Response> };
      return target.fetch(`http://relay.test${path}`, init);
    };
    await awardsGoThrough(worker);

    const player = `p-${crypto.randomUUID()}`;
    const jwt = await playerToken(player);
    const key = crypto.randomUUID();
    const award = (eventPoints: number) =>
      worker('/group-quests/q1/points', {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: key },
        body: JSON.stringify({ serviceUserId: player, eventPoints }),
      }) as Promise<Response>;
    const ledgerOf = () => (emulator.exportState().ledger ?? []).filter((entry) => entry.serviceUserId === player).length;
    expect((await award(4)).status).toBe(200);
    expect(ledgerOf()).toBe(1);
    // The service forgets (its retention ended: here a reset); the resend never reaches it.
    expect((await fetch(`${emulator.url}/__emulator/reset`, { method: 'POST' })).status).toBe(200);
    const resent = await award(4);
    expect([resent.status, resent.headers.get('Idempotent-Replayed'), await resent.json()]).toEqual([200, 'true', { success: true }]);
    expect(ledgerOf()).toBe(0);
    // The same key with another award: refused as the service would (422), from the record.
    const other = await award(5);
    expect(other.status).toBe(422);
    await until(() => /"msg":"request"/.test(output), 'relay-workers: an access log line on the console', 3_000, 20);
    const docs = await readFile('docs/relay/deploy.md', 'utf8');
    expect(docs).toContain(`<!-- snippet: ${source} -->\n`);
    expect(docs).toContain('<!-- snippet: examples/relay-workers/wrangler.toml -->\n');
  });
});
