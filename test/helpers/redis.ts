import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';

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
  /** Start it again on the same port after stop(); does nothing while it runs (a second server could not bind). */
  restart(): Promise<void>;
  /** Whether something accepts connections on the port now (false once stop() has really stopped it). */
  accepting(): Promise<boolean>;
}

/** Whether a TCP connection to 127.0.0.1:port is accepted. */
export function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A throwaway redis-server on 127.0.0.1 and a free port, nothing persisted; resolves once it accepts connections. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  // The one server this handle stops. Replaced only by a server that came up: a start that failed (the port still
  // held by the first one) must not lose the handle of the one still running (issue 21, bug 5).
  let child: ChildProcess | undefined;
  const running = () => !!child && child.exitCode === null && child.signalCode === null;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(redisServerPath(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`redis-server did not start within 10 s: ${output}`));
      }, 10_000);
      proc.stdout!.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          child = proc;
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
    if (!proc || !running()) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(signal);
    await exited;
  };
  await launch();
  const restart = async () => {
    if (!running()) await launch();
  };
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart, accepting: () => accepting(port) };
}
