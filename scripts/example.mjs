#!/usr/bin/env node
// `npm run example <name>`: serves examples/<name> with its own vite.config.ts (quest-points/vite: a dev relay at
// /api, dev tokens at /__dev/token, the emulator behind them) on http://127.0.0.1:5174. The examples import the
// package by its own name, so they run against the build: on a fresh clone (no dist/) this builds it first.
// operator-server runs its own server (PORT, default 3000).
//
// Stopping: `npm run` passes SIGTERM to its script's process alone, so the script is `exec node ...` (no shell left
// between npm and this process) and the server is spawned straight from its package's bin with this node (no npx, whose
// `sh -c` would die of the signal and leave the server running); the signal is passed on to it, and this process
// exits with it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const names = readdirSync(`${repo}examples`, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('relay-'))
  .map((entry) => entry.name);
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run example <name>, one of: ${names.join(', ')}`);
  process.exit(2);
}
if (!existsSync(`${repo}dist/vite/index.js`)) {
  console.error('the examples import the built package: building it (npm run build)');
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: repo });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const require = createRequire(import.meta.url);
const dir = `${repo}examples/${name}`;
const vite = `${dirname(require.resolve('vite/package.json'))}/bin/vite.js`;
const args = existsSync(`${dir}/server.ts`)
  ? [require.resolve('tsx/cli'), `${dir}/server.ts`]
  : [vite, dir, '--config', `${dir}/vite.config.ts`, '--host', '127.0.0.1', '--port', '5174'];
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: repo });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
