// close() and a connection the kernel completed while the server's event loop was busy: the client has connected and
// sent its request, the server has not accepted the connection yet (it waits in the listener's queue until the loop's
// next poll). On a loaded machine that is the usual state of a connection that arrived during the last few
// milliseconds before a relay's drain delay ended (the chaos run's "1 requests cut by a relay shutting down
// gracefully"). Closing the listener at once made the kernel reset it: the request was cut, and a balancer answers
// that POST 502 without resending it. Here the loop is held busy on purpose, so the order is the same on every run.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startNodeServer, type RunningServer } from '../../src/kit/index.js';

const servers: RunningServer[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A client in its own process (it runs while this one is held): connects, sends a POST, says so in `flag`, prints the answer or its error. */
const CLIENT = `
const [port, flag] = process.argv.slice(1);
const socket = require('node:net').connect(Number(port), '127.0.0.1');
let received = '';
socket.on('data', (chunk) => (received += chunk));
socket.on('error', (error) => { process.stdout.write('error ' + error.code); process.exit(0); });
socket.on('close', () => process.stdout.write(received.split('\\r\\n')[0]));
socket.write('POST / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nContent-Length: 2\\r\\n\\r\\n{}', () =>
  require('node:fs').writeFileSync(flag, ''));
`;

/** Holds this process's event loop (no poll, no timer) until `flag` exists. */
function holdUntil(flag: string, timeoutMs: number): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(flag)) {
    if (Date.now() > deadline) throw new Error('the client did not send its request');
    Atomics.wait(wait, 0, 0, 5);
  }
}

it('close() serves a request whose connection the kernel completed while the event loop was busy (not yet accepted)', async () => {
  const server = await startNodeServer({
    host: '127.0.0.1',
    port: 0,
    shutdownGraceMs: 5_000,
    fetch: async (request) => Response.json({ received: await request.text() }),
  });
  servers.push(server);
  const folder = mkdtempSync(join(tmpdir(), 'close-queued-'));
  folders.push(folder);
  const flag = join(folder, 'sent');
  const client = spawn(process.execPath, ['-e', CLIENT, String(server.port), flag], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  client.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => client.once('exit', () => resolve()));
  // From here until close() the loop does not poll: the connection stays in the listener's queue, its request sent.
  holdUntil(flag, 30_000);
  const closing = server.close();
  await exited;
  expect(output).toBe('HTTP/1.1 200 OK');
  await closing;
});
