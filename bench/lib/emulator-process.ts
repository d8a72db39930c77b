// The emulator, the relay and the bare proxy as their own processes, as in production: the bench's load generator
// reaches them over loopback HTTP, and none shares a Node event loop with another. Started through the CLI (or a
// script), stopped by pid. /proc gives each one's RSS and CPU time, so a figure can say what that process paid.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { repoRoot } from './bundle.js';

export interface ChildServer {
  url: string;
  pid: number;
  /** Resident set size now (VmRSS), bytes. */
  rss(): Promise<number>;
  /** User + system CPU time used so far, ms. */
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

export interface EmulatorProcess extends ChildServer {
  /** Ledger entries the emulator holds for a quest (GET /__emulator/state): what was really delivered. */
  delivered(questId: string): Promise<number>;
}

const START_TIMEOUT_MS = 30_000;
const CLOCK_TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/** Spawns `node --import tsx <args>` and resolves once it prints `listening on http://...`. */
export async function spawnServer(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ChildServer> {
  // Secrets go in the environment, not argv, so they do not show in the process list.
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The relay logs a JSON line per request on stderr: keep only the tail, for a start-up failure's message.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in ${START_TIMEOUT_MS} ms: ${stderr}`)), START_TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}) before listening: ${stderr}`));
    });
  }).catch(async (error) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });

  const pid = child.pid!;
  return {
    url,
    pid,
    async rss() {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
    async cpuMs() {
      // Fields 14 and 15 of /proc/pid/stat (after the parenthesised name): utime and stime in clock ticks.
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_MS;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function spawnEmulator(apiKey: string, options: { faults?: object } = {}): Promise<EmulatorProcess> {
  const faults = options.faults ? ['--faults', JSON.stringify(options.faults)] : [];
  const server = await spawnServer(['src/cli.ts', 'emulator', '--port', '0', '--admin', ...faults], { QP_API_KEY: apiKey });
  return {
    ...server,
    async delivered(questId) {
      const response = await fetch(`${server.url}/__emulator/state`);
      const { data } = (await response.json()) as { data: { ledger?: { questId: string }[] } };
      return (data.ledger ?? []).filter((entry) => entry.questId === questId).length;
    },
  };
}
