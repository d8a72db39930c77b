// The operator's side of a chaos run: N relay processes started with the CLI (`quest-points relay`, as an operator
// runs them) on one redis-server, each on a fixed port the balancer knows. Rolling restarts (SIGTERM, wait for the
// graceful exit, start again on the same port, possibly with a new configuration), crashes (SIGKILL) and Redis
// crashes are done here; the balancer (balancer.ts) asks what state a relay was in when it cut a request.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RelayPolicy } from '../../src/relay/index.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
/** The package's bin as built (`npm run build`): what `npx quest-points relay` runs. */
const BUILT_CLI = new URL('../../dist/cli.js', import.meta.url).pathname;

const DRAIN_DELAY_MS = 1_000;

export type StoreErrorMode = 'closed' | 'open';

/** What an operator sets in a relay's environment; a rolling restart may change it. */
export interface RelayConfig {
  onStoreError: StoreErrorMode;
  /** Token secrets: the first signs, every one verifies (QP_RELAY_SECRET, QP_RELAY_SECRET_PREVIOUS). */
  secrets: string[];
  /** The upstream key namespace (QP_KEY_SECRET), never rotated. */
  keySecret: string;
}

/** What a relay process was doing: the balancer blames a cut request on this. */
export type RelayState = 'starting' | 'running' | 'terminating' | 'killed' | 'down';

export interface FleetOptions {
  relays: number;
  upstreamUrl: string;
  apiKey: string;
  policy: RelayPolicy;
  corsOrigins: string[];
  maxTokenAgeSeconds: number;
  config: RelayConfig;
  /** More CLI flags for every relay (e.g. `--trust-proxy 1` behind a proxy). */
  args?: string[];
  /**
   * Run the built bin (dist/cli.js, as `npx quest-points relay` does) rather than src/cli.ts through tsx: no
   * transpiling at each start, so a relay (re)starts in a fraction of the time on a loaded machine. Needs a build.
   */
  built?: boolean;
  /** A Redis the fleet does not own (a Redis Cluster's `redis+cluster://` URL); default: its own redis-server. */
  redisUrl?: string;
}

interface Member {
  port: number;
  state: RelayState;
  child?: ChildProcess;
  /** The last lines the process wrote on stderr (JSON logs), for a failure message. */
  tail: string[];
}

export interface GracefulExit {
  port: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
}

export async function startFleet(options: FleetOptions) {
  const redis: TestRedis | undefined = options.redisUrl ? undefined : await startRedis();
  const redisUrl = options.redisUrl ?? redis!.url;
  const dir = mkdtempSync(join(tmpdir(), 'qp-fleet-'));
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(options.policy));
  let config = options.config;
  const members: Member[] = [];
  for (let i = 0; i < options.relays; i++) members.push({ port: await freePort(), state: 'down', tail: [] });
  const exits: GracefulExit[] = [];
  /** Redis down periods (ms since epoch), with the relays' onStoreError at the time. */
  const redisOutages: { from: number; to: number; mode: StoreErrorMode }[] = [];

  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    QP_API_KEY: options.apiKey,
    QP_UPSTREAM_URL: options.upstreamUrl,
    QP_REDIS_URL: redisUrl,
    QP_ON_STORE_ERROR: config.onStoreError,
    QP_RELAY_SECRET: config.secrets[0],
    ...(config.secrets[1] ? { QP_RELAY_SECRET_PREVIOUS: config.secrets[1] } : {}),
    QP_KEY_SECRET: config.keySecret,
    QP_MAX_TOKEN_AGE: String(options.maxTokenAgeSeconds),
    // On SIGTERM, /readyz says 503 this long before the listener closes: the balancer's health check (every
    // 100 ms) takes the relay out of rotation first, so no connection waits in a closing listener's queue.
    QP_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
  });

  async function start(member: Member): Promise<void> {
    member.state = 'starting';
    const entry = options.built ? [BUILT_CLI] : ['--import', 'tsx', CLI];
    const args = [...entry, 'relay', '--host', '127.0.0.1', '--port', String(member.port), '--policy', policyFile];
    for (const origin of options.corsOrigins) args.push('--cors-origin', origin);
    args.push(...(options.args ?? []));
    const child = spawn(process.execPath, args, { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    member.child = child;
    member.tail = [];
    child.stderr!.on('data', (chunk: Buffer) => {
      member.tail.push(...String(chunk).split('\n').filter(Boolean));
      if (member.tail.length > 40) member.tail.splice(0, member.tail.length - 40);
    });
    let stdout = '';
    const listening = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`relay on ${member.port} did not start within 60 s: ${member.tail.join('\n')}`)), 60_000);
      child.stdout!.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`relay on ${member.port} exited (${code ?? signal}) before listening: ${member.tail.join('\n')}`));
      });
    });
    await listening;
    member.state = 'running';
  }

  /** SIGTERM, and the time until the process is gone: the graceful exit an orchestrator waits for. */
  async function terminate(member: Member): Promise<GracefulExit> {
    const child = member.child!;
    const started = performance.now();
    member.state = 'terminating';
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    member.state = 'down';
    const exit = { port: member.port, code, signal, ms: Math.round(performance.now() - started) };
    exits.push(exit);
    if (code !== 0) throw new Error(`relay on ${member.port} exited ${code ?? signal} after SIGTERM: ${member.tail.slice(-5).join('\n')}`);
    return exit;
  }

  async function kill(member: Member): Promise<void> {
    const child = member.child!;
    member.state = 'killed';
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    member.state = 'down';
  }

  await Promise.all(members.map(start));
  /** A Redis crash in progress, and whether close() was called: close() waits for the one, the other stops it. */
  let crashing: Promise<void> | undefined;
  let closed = false;

  return {
    /** The fleet's own redis-server (none when given redisUrl). */
    redis,
    redisUrl,
    ports: () => members.map((m) => m.port),
    state: (port: number): RelayState => members.find((m) => m.port === port)?.state ?? 'down',
    config: () => config,
    exits,
    redisOutages,
    /**
     * One relay after the other: SIGTERM, its graceful exit, started again on the same port (with `next` as its
     * configuration: an operator deploys a change this way), and ready before the next one goes.
     */
    async rollingRestart(next: Partial<RelayConfig> = {}): Promise<GracefulExit[]> {
      config = { ...config, ...next };
      const done: GracefulExit[] = [];
      for (const member of members) {
        done.push(await terminate(member));
        await start(member);
      }
      return done;
    },
    /** SIGKILL one relay (requests in flight at it are cut) and start it again after `downMs`. */
    async crashRelay(index: number, downMs: number): Promise<void> {
      const member = members[index % members.length]!;
      await kill(member);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start(member);
    },
    /** SIGKILL redis-server (its counters are lost: nothing is persisted) and start it again after `downMs`. */
    crashRedis(downMs: number): Promise<void> {
      if (!redis) throw new Error('crashRedis: the fleet does not own its Redis (redisUrl was given)');
      crashing = (async () => {
        const from = Date.now();
        await redis.stop('SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, downMs));
        // A run that failed closes the fleet while the crash still waits: no server is started after close().
        if (closed) return;
        await redis.restart();
        redisOutages.push({ from, to: Date.now(), mode: config.onStoreError });
      })();
      return crashing;
    },
    async close(): Promise<void> {
      closed = true;
      await crashing?.catch(() => undefined);
      for (const member of members) {
        if (member.child && member.child.exitCode === null && member.child.signalCode === null) await kill(member);
      }
      await redis?.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Fleet = Awaited<ReturnType<typeof startFleet>>;
