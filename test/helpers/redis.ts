import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** Debian's redis-server (`.ci/run` installs it): REDIS_SERVER_PATH, else the usual places. */
export function redisServerPath(): string {
  const candidates = [process.env.REDIS_SERVER_PATH, '/usr/bin/redis-server', '/usr/local/bin/redis-server'];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('redis-server not found: install Debian\'s "redis-server" package or set REDIS_SERVER_PATH');
  return found;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface TestRedis {
  url: string;
  port: number;
  /** Stop the server (SIGTERM, or SIGKILL for a crash) and wait for it to exit. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Start it again on the same port (after stop). */
  restart(): Promise<void>;
}

/** A throwaway redis-server on 127.0.0.1 and a free port, nothing persisted; resolves once it accepts connections. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(redisServerPath(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
      proc.stdout!.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(signal);
    await exited;
  };
  await launch();
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart: launch };
}
