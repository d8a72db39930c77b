// close() and a connection the kernel completed while the server's event loop was busy: the client has connected and
// sent its request, the server has not accepted the connection yet (it waits in the listener's queue until the loop's
// next poll). On a loaded machine that is the usual state of a connection that arrived during the last few
// milliseconds before a relay's drain delay ended (the chaos run's "1 requests cut by a relay shutting down
// gracefully"). Closing the listener at once made the kernel reset it: the request was cut, and a balancer answers
// that POST 502 without resending it. Here the loop is held busy on purpose, so the order is the same on every run.
import { spawn } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startNodeServer, type RunningServer } from '../../src/kit/index.js';
import { SILENT_CONNECTION_MS } from '../../src/kit/server.js';
import { until } from '../helpers/until.js';

/** The local ports of the connections servers in this process accepted (Node's net.server.socket channel). */
const accepted = new Set<number>();
subscribe('net.server.socket', (message) => void accepted.add((message as { socket: Socket }).socket.localPort!));

const servers: RunningServer[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A client in its own process (it runs while this one is held): connects, sends a POST (at once, or once the file
 * `go` exists), says so in `flag`, prints the answer's status line or its error.
 */
const CLIENT = `
const [port, flag, go] = process.argv.slice(1);
const fs = require('node:fs');
const socket = require('node:net').connect(Number(port), '127.0.0.1');
let received = '';
socket.on('data', (chunk) => (received += chunk));
socket.on('error', (error) => { process.stdout.write('error ' + error.code); process.exit(0); });
socket.on('close', () => process.stdout.write(received.split('\\r\\n')[0]));
const send = () => socket.write('POST / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nContent-Length: 2\\r\\n\\r\\n{}', () =>
  fs.writeFileSync(flag, ''));
if (!go) send();
else { const wait = setInterval(() => { if (fs.existsSync(go)) { clearInterval(wait); send(); } }, 5); }
`;

/** The client's process and, once it exits, what it printed. */
function client(port: number, folder: string, go?: string) {
  const child = spawn(process.execPath, ['-e', CLIENT, String(port), join(folder, 'sent'), ...(go ? [go] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  return { sent: join(folder, 'sent'), output: new Promise<string>((resolve) => child.once('exit', () => resolve(output))) };
}

/** Holds this process's event loop (no poll, no timer) until `flag` exists and at least `minMs` have passed. */
function holdUntil(flag: string, minMs = 0): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const started = Date.now();
  while (!existsSync(flag) || Date.now() - started < minMs) {
    if (Date.now() - started > 30_000) throw new Error('the client did not send its request');
    Atomics.wait(wait, 0, 0, 5);
  }
}

async function start() {
  const server = await startNodeServer({
    host: '127.0.0.1',
    port: 0,
    shutdownGraceMs: 5_000,
    fetch: async (request) => Response.json({ received: await request.text() }),
  });
  servers.push(server);
  const folder = mkdtempSync(join(tmpdir(), 'close-queued-'));
  folders.push(folder);
  return { server, folder };
}

it('close() serves a request whose connection the kernel completed while the event loop was busy (not yet accepted)', async () => {
  const { server, folder } = await start();
  const { sent, output } = client(server.port, folder);
  // From here until close() the loop does not poll: the connection stays in the listener's queue, its request sent.
  holdUntil(sent);
  const closing = server.close();
  expect(await output).toBe('HTTP/1.1 200 OK');
  await closing;
});

it('close() serves a request head that arrived while the loop was held past the silent-connection grace', async () => {
  const { server, folder } = await start();
  const go = join(folder, 'go');
  const { sent, output } = client(server.port, folder, go);
  // Accepted by the server, nothing sent yet.
  await until(() => accepted.has(server.port), 'the server to accept the connection');
  const closing = server.close();
  // The head arrives, and the loop is held past the grace, from its check phase: the next iteration runs the due
  // timer before the poll that would read the head.
  await new Promise<void>((resolve) =>
    setImmediate(() => {
      writeFileSync(go, '');
      holdUntil(sent, SILENT_CONNECTION_MS + 100);
      resolve();
    }),
  );
  expect(await output).toBe('HTTP/1.1 200 OK');
  await closing;
});
