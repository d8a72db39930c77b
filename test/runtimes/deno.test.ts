// The relay on Deno (the `deno` npm package's binary), on Deno.serve: test/runtimes/servers/deno.ts. The sources are
// TypeScript with Node-style `.js` specifiers (--sloppy-imports maps them), packages from the repo's node_modules
// (--node-modules-dir=manual: Deno installs nothing).
import { describe } from 'vitest';
import { runtimeBinary, startServerProcess } from './harness.js';
import { runtimeMatrix } from './matrix.js';

const DENO_ARGS = ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', '--sloppy-imports', '--node-modules-dir=manual', '--no-lock'];

describe('Deno', { timeout: 60_000 }, () => {
  runtimeMatrix(
    'Deno',
    (env) => startServerProcess(runtimeBinary('deno'), [...DENO_ARGS, 'test/runtimes/servers/deno.ts'], env),
    (args, env) => startServerProcess(runtimeBinary('deno'), [...DENO_ARGS, 'src/cli.ts', ...args], env),
  );
});
