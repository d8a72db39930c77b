// createRelay's import graph holds nothing from Node: no built-in, no prom-client, node-redis, @hono/node-server,
// pino or undici. That is what lets the same core run on Bun, Deno, Cloudflare Workers and inside a framework.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleCore } from './bundle.js';

const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

describe("the relay core's import graph", { timeout: 30_000 }, () => {
  it('quest-points/relay (createRelay) imports nothing from Node', async () => {
    const core = await bundleCore(src('relay/index.ts'));
    expect(core.nodeImports).toEqual([]);
    expect(core.inputs.filter((input) => /node_modules\/(prom-client|redis|@redis|@hono\/node-server|pino|undici)\//.test(input))).toEqual([]);
    expect(core.inputs.filter((input) => input.includes('src/relay/node/'))).toEqual([]);
    // It is the relay: the routes and the token check are in it.
    expect(core.inputs).toEqual(expect.arrayContaining(['src/relay/app.ts', 'src/relay/batch.ts', 'src/relay/token.ts']));
  });

  it('the check sees Node imports where they are: quest-points/relay/node', async () => {
    const node = await bundleCore(src('relay/node/index.ts'));
    expect(node.nodeImports.join('\n')).toMatch(/^node:/m);
    expect(node.nodeImports.join('\n')).toMatch(/^prom-client /m);
    expect(node.nodeImports.join('\n')).toMatch(/^redis /m);
  });
});
