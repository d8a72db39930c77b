// `npm run example operator-server` as a user runs it (npm, its script, the server), on a free port over a real
// socket: SIGTERM to npm stops the server. Before, npm passed the signal to its `sh -c` alone, which died of it and
// left scripts/example.mjs (and its npx, its tsx, the server) running on the port.
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { until } from '../helpers/until.js';
import { repo } from './harness.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** True while something accepts TCP connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm run example', () => {
  it('operator-server: SIGTERM to npm stops its server', async () => {
    const port = await freePort();
    // Its own process group, so that whatever the test leaves behind (on failure) is killed after it.
    const npm = spawn('npm', ['run', 'example', 'operator-server'], {
      cwd: repo,
      env: { ...process.env, PORT: String(port) },
      detached: true,
      stdio: 'pipe',
    });
    let output = '';
    npm.stdout.on('data', (chunk) => (output += chunk));
    npm.stderr.on('data', (chunk) => (output += chunk));
    onTestFinished(() => {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {}
    });
    await until(() => output.includes(`operator's game server on http://127.0.0.1:${port}`), 'the server started', 60_000);
    expect(await listening(port)).toBe(true);
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    npm.kill('SIGTERM');
    await exited;
    await until(async () => !(await listening(port)), `port ${port} closed after SIGTERM`, 15_000);
  }, 90_000);
});
