// The relay on Bun (the `bun` npm package's binary), on Bun.serve: test/runtimes/servers/bun.ts.
import { describe } from 'vitest';
import { runtimeBinary, startServerProcess } from './harness.js';
import { runtimeMatrix } from './matrix.js';

describe('Bun', { timeout: 60_000 }, () => {
  runtimeMatrix(
    'Bun',
    (env) => startServerProcess(runtimeBinary('bun'), ['test/runtimes/servers/bun.ts'], env),
    (args, env) => startServerProcess(runtimeBinary('bun'), ['src/cli.ts', ...args], env),
  );
});
