// What every runtime test does with a relay it started: single awards and a batch against the emulator, read back
// through the relay; and, with a shared store, one per-player limit counted across two instances.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { signPlayerToken } from '../../src/relay/index.js';
import { SECRET } from '../helpers/fixtures.js';

export const repo = fileURLToPath(new URL('../../', import.meta.url));
export const bin = (name: string) => `${repo}node_modules/.bin/${name}`;

export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
  /** What it wrote so far, stdout and stderr (its access log is on stderr). */
  output(): string;
}

/**
 * Spawn a one-file server and resolve with its URL once it prints "listening on URL". Fails with its output when
 * it exits first or does not listen within `timeoutMs`; stop() ends it (SIGTERM, then SIGKILL after 3 s).
 */
export function startServerProcess(command: string, args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  // No update check or telemetry call from Deno or Bun: the test needs no network beyond 127.0.0.1.
  const quiet = { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', DO_NOT_TRACK: '1' };
  const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...quiet, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () => stopChild(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} did not listen within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve({ url: listening[1]!, stop, output: () => output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(kill);
}

/** The parts of the service's answers these checks read (a single award, a batch, a total). */
type Answer = { status: number; json: { success?: boolean; results?: unknown; data?: { totalPoints?: number } } };

/** How a test reaches a relay: a path and a RequestInit in, an answer out (a URL over HTTP, or a Worker's fetch). */
export type Client = (path: string, init: RequestInit) => Promise<{ status: number; json(): Promise<unknown> }>;

export const httpClient =
  (base: string): Client =>
  (path, init) =>
    fetch(base + path, init);

async function call(
  client: Client,
  method: string,
  path: string,
  jwt: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await client(path, {
    method,
    headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Answer['json'] };
}

export const playerToken = (sub: string) => signPlayerToken({ sub }, { secret: SECRET, ttl: '5m' });

/** Two single awards and a batch of three through the relay; the service's total read back through it. */
export async function awardsGoThrough(base: Client, player = `p-${crypto.randomUUID()}`): Promise<void> {
  const jwt = await playerToken(player);
  for (const points of [5, 7]) {
    const single = await call(
      base,
      'POST',
      '/group-quests/q1/points',
      jwt,
      { serviceUserId: player, eventPoints: points },
      { IDEMPOTENCY_KEY: crypto.randomUUID() },
    );
    expect([single.status, single.json.success]).toEqual([200, true]);
  }
  const awards = [1, 2, 3].map((eventPoints) => ({ questId: 'q1', serviceUserId: player, eventPoints, idempotencyKey: crypto.randomUUID() }));
  const batch = await call(base, 'POST', '/batch/points', jwt, { awards });
  expect(batch.status).toBe(200);
  expect(batch.json.results).toEqual(awards.map(({ idempotencyKey }) => ({ idempotencyKey, outcome: 'ok' })));
  const total = await call(base, 'GET', `/group-quests/q1/points/${player}`, jwt);
  expect([total.status, total.json.data?.totalPoints]).toEqual([200, 18]);
}

/** A per-player limit of `limit`, 2 x limit awards alternating between two instances: exactly `limit` pass. */
export async function limitIsShared(a: Client, b: Client, limit: number): Promise<void> {
  const player = `p-${crypto.randomUUID()}`;
  const jwt = await playerToken(player);
  const statuses: number[] = [];
  for (let i = 0; i < 2 * limit; i++) {
    const answer = await call(
      i % 2 ? a : b,
      'POST',
      '/group-quests/q1/points',
      jwt,
      { serviceUserId: player, eventPoints: 1 },
      { IDEMPOTENCY_KEY: crypto.randomUUID() },
    );
    statuses.push(answer.status);
  }
  expect(statuses).toEqual([...Array(limit).fill(200), ...Array(limit).fill(429)]);
}

/** The policy of the shared-limit tests: a per-player limit the test can exhaust. */
export const limitedPolicy = (limit: number) => ({
  allowUnknownEvents: true,
  maxPointsPerAward: 1000,
  rateLimits: { perPlayer: { limit, windowSeconds: 60 } },
});

/**
 * The npm packages' binaries. `bun`'s postinstall moves the platform package's binary over a placeholder; should an
 * install skip it (npm blocking install scripts not listed in allowScripts), the platform package still holds it.
 */
export function runtimeBinary(name: 'bun' | 'deno'): string {
  const fallback = name === 'bun' ? `${repo}node_modules/@oven/bun-linux-x64/bin/bun` : `${repo}node_modules/@deno/linux-x64-glibc/deno`;
  return existsSync(fallback) && statSync(fallback).size > 1_000_000 ? fallback : bin(name);
}
