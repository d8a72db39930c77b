// The emulator as its own process, as the service is in production: the relay (in the bench process) reaches it
// over loopback HTTP, and neither shares a Node event loop with the other. Started through the CLI, stopped by pid.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { repoRoot } from './bundle.js';

export interface EmulatorProcess {
  url: string;
  pid: number;
  /** Ledger entries the emulator holds for a quest (GET /__emulator/state): what was really delivered. */
  delivered(questId: string): Promise<number>;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

export async function spawnEmulator(apiKey: string): Promise<EmulatorProcess> {
  // The key goes in the environment, not argv, so it does not show in the process list.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'emulator', '--port', '0', '--admin'], {
    cwd: repoRoot,
    env: { ...process.env, QP_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`emulator did not start in ${START_TIMEOUT_MS} ms: ${stderr.join('')}`)), START_TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening on (http:\/\/\S+)/.exec(line);
      if (match) clearTimeout(timer), resolve(match[1]!);
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`emulator exited (${code}) before listening: ${stderr.join('')}`))));
  }).catch(async (error) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });

  return {
    url,
    pid: child.pid!,
    async delivered(questId) {
      const response = await fetch(`${url}/__emulator/state`);
      const { data } = (await response.json()) as { data: { ledger?: { questId: string }[] } };
      return (data.ledger ?? []).filter((entry) => entry.questId === questId).length;
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
