// The relay on Node (startRelay: @hono/node-server, prom-client, node-redis): test/runtimes/servers/node.ts.
import { describe } from 'vitest';
import { bin, startServerProcess } from './harness.js';
import { runtimeMatrix } from './matrix.js';

describe('Node', { timeout: 60_000 }, () => {
  runtimeMatrix('Node', (env) => startServerProcess(bin('tsx'), ['test/runtimes/servers/node.ts'], env));
});
