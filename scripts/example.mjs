#!/usr/bin/env node
// `npm run example <name>`: serves examples/<name> with its own vite.config.ts (quest-points/vite: a dev relay at
// /api, dev tokens at /__dev/token, the emulator behind them) on http://127.0.0.1:5174. The examples import the
// package by its own name, so they run against the build: `npm run build` first. operator-server runs its own server.
import { existsSync, readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
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
  console.error('the examples import the built package: run `npm run build` first');
  process.exit(1);
}
const dir = `${repo}examples/${name}`;
const command = existsSync(`${dir}/server.ts`)
  ? ['npx', ['tsx', `${dir}/server.ts`]]
  : ['npx', ['vite', dir, '--config', `${dir}/vite.config.ts`, '--host', '127.0.0.1', '--port', '5174']];
const child = spawn(command[0], command[1], { stdio: 'inherit', cwd: repo });
child.on('exit', (code) => process.exit(code ?? 1));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
