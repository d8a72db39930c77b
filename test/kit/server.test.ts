// The Node server every face runs on: slow clients are cut off, connections are capped, close() is graceful.
import { connect, type Socket } from 'node:net';
import { subscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, startNodeServer, type RunningServer } from '../../src/kit/index.js';
import { SILENT_CONNECTION_MS as SILENT_GRACE_MS } from '../../src/kit/server.js';
import { until } from '../helpers/until.js';

/** The remote ports of the connections servers in this process accepted (Node's net.server.socket channel). */
const accepted = new Set<number>();
subscribe('net.server.socket', (message) => void accepted.add((message as { socket: Socket }).socket.remotePort!));

const servers: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Partial<Parameters<typeof startNodeServer>[0]> = {}) {
  const server = await startNodeServer({
    host: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const text = request.body ? await request.text() : '';
      return Response.json({ success: true, received: text.length });
    },
    ...options,
  });
  servers.push(server);
  return server;
}

/** A raw socket; resolves with what the server wrote and how long until it closed the connection. */
function open(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => undefined);
  const started = performance.now();
  const closed = new Promise<{ received: string; afterMs: number }>((resolve) =>
    socket.once('close', () => resolve({ received, afterMs: performance.now() - started })),
  );
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  return { socket, closed, connected, answered };
}

/** Write `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number) {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

describe('startNodeServer limits', () => {
  it('cuts off a body still arriving after requestTimeoutMs (1 byte per 100 ms), answering 408', async () => {
    const server = await start({ headersTimeoutMs: 300, requestTimeoutMs: 800 });
    const { socket, closed, connected } = open(server.port);
    await connected;
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    trickle(socket, `{"a":"${'x'.repeat(990)}"}`, 100);
    const { received, afterMs } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    // Cut at the deadline, not when the body would have ended (~100 s at this pace).
    expect(afterMs).toBeGreaterThanOrEqual(700);
    expect(afterMs).toBeLessThan(3_000);
  });

  it('cuts off a request head still arriving after headersTimeoutMs', async () => {
    const server = await start({ headersTimeoutMs: 300, requestTimeoutMs: 5_000 });
    const { socket, closed, connected } = open(server.port);
    await connected;
    trickle(socket, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'y'.repeat(200)}\r\n\r\n`, 50);
    const { received, afterMs } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeLessThan(2_500);
  });

  it('a prompt client is served as usual under the same limits', async () => {
    const server = await start({ headersTimeoutMs: 300, requestTimeoutMs: 800 });
    const response = await fetch(server.url, { method: 'POST', body: 'hello' });
    expect(await response.json()).toEqual({ success: true, received: 5 });
  });

  it('at maxConnections, closes the connection idle the longest to admit a new one', async () => {
    const server = await start({ maxConnections: 2 });
    const first = open(server.port);
    await first.connected;
    first.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await first.answered;
    const second = open(server.port);
    await second.connected;
    second.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await second.answered;
    // Both served once and kept alive (idle): a third is admitted, and the oldest idle one (first) is closed for it.
    const third = open(server.port);
    await third.connected;
    third.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect((await third.closed).received).toMatch(/^HTTP\/1\.1 200 /);
    expect((await first.closed).received.match(/HTTP\/1\.1 200 /g)).toHaveLength(1);
    expect(second.socket.destroyed).toBe(false);
  });

  it('cap N: N+20 clients holding idle keep-alive sockets, then 10 new clients: every one answered', async () => {
    const N = 30;
    const server = await start({ maxConnections: N });
    const outcomes: string[] = [];
    for (let i = 0; i < N + 20 + 10; i++) {
      const client = open(server.port);
      await client.connected;
      client.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      // Answered, or closed unanswered (Node's own maxConnections closed the 31st and every one after it).
      outcomes.push(await Promise.race([client.answered.then(() => 'answered'), client.closed.then(() => 'closed unanswered')]));
    }
    expect(outcomes.filter((outcome) => outcome !== 'answered')).toEqual([]);
    expect(outcomes).toHaveLength(N + 30);
  });

  it('cap N: N silent connections (no request head) past a short grace do not shut a newcomer out until headersTimeout', async () => {
    const N = 5;
    const server = await start({ maxConnections: N });
    // Connected and silent, or a head that never ends (slowloris): neither has been a request yet.
    const silent: ReturnType<typeof open>[] = [];
    for (let i = 0; i < N; i++) {
      const client = open(server.port);
      await client.connected;
      if (i % 2) client.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      silent.push(client);
    }
    await until(() => accepted.has(silent.at(-1)!.socket.localPort!), 'the server accepted every silent connection');
    // Past the grace a fresh connection gets to send its head (a preconnect's or a slow network's), well below the
    // 10 s headersTimeout: as long as the cap was held before.
    await new Promise((resolve) => setTimeout(resolve, SILENT_GRACE_MS + 100));
    const newcomer = open(server.port);
    await newcomer.connected;
    newcomer.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const { received, afterMs } = await newcomer.closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(afterMs).toBeLessThan(2_000);
    // The silent connection that waited the longest made room, unanswered; the others are still open.
    expect((await silent[0]!.closed).received).toBe('');
    expect(silent.slice(1).filter((client) => client.socket.destroyed)).toEqual([]);
  });

  it('at the cap, a silent connection younger than the grace is kept and the idle one goes', async () => {
    const server = await start({ maxConnections: 2 });
    const idle = open(server.port);
    await idle.connected;
    idle.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await idle.answered;
    const fresh = open(server.port);
    await fresh.connected;
    await until(() => accepted.has(fresh.socket.localPort!), 'the server accepted the silent connection');
    const newcomer = open(server.port);
    await newcomer.connected;
    newcomer.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect((await newcomer.closed).received).toMatch(/^HTTP\/1\.1 200 /);
    expect((await idle.closed).received.match(/HTTP\/1\.1 200 /g)).toHaveLength(1);
    // Its head may still come: it is served.
    fresh.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect((await fresh.closed).received).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('N busy connections still bound the server: the next one is closed on accept, unanswered', async () => {
    const N = 5;
    const server = await start({ maxConnections: N });
    const busy = [];
    for (let i = 0; i < N; i++) {
      const client = open(server.port);
      await client.connected;
      // The head arrives, the body never does: the request is being handled, the connection is busy.
      client.socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
      busy.push(client);
    }
    // A connection is busy from accept until its answer is written (a head or body still to come included).
    const extra = open(server.port);
    extra.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const { received } = await extra.closed;
    expect(received).toBe('');
    for (const client of busy) expect(client.socket.destroyed).toBe(false);
  });

  it('close() lets an in-flight request finish, refuses new connections, and closes idle keep-alive connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const server = await start({
      shutdownGraceMs: 5_000,
      fetch: async (request) => {
        if (new URL(request.url).pathname === '/slow') {
          entered();
          await gate;
        }
        return Response.json({ success: true });
      },
    });
    // An idle keep-alive connection: served once, then left open by the client.
    const idle = open(server.port);
    await idle.connected;
    idle.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const inFlight = fetch(`${server.url}/slow`);
    await inside;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    expect((await idle.closed).received).toMatch(/^HTTP\/1\.1 200 /);
    await expect(fetch(server.url)).rejects.toThrow();
    expect(closed).toBe(false);
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    await closing;
    expect(closed).toBe(true);
  });

  it('close() serves a request arriving on a connection it had accepted, and says the connection ends (Connection: close)', async () => {
    // A client that pools connections (a balancer) would otherwise send its next request on a socket the sweep closes.
    const server = await start({ shutdownGraceMs: 5_000 });
    const client = open(server.port);
    await client.connected;
    // Accepted by the server (not only queued by the kernel): the accepted socket's remote port is the client's.
    await until(() => accepted.has(client.socket.localPort!), 'the server to accept the connection');
    const closing = server.close();
    client.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const { received } = await client.closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received.toLowerCase()).toContain('connection: close');
    await closing;
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('close() serves a connection accepted before it whose request was still on its way (a balancer does not resend that POST)', async () => {
    const server = await start({ shutdownGraceMs: 5_000 });
    // Accepted, nothing sent yet: the request is on its way when close() starts.
    const late = open(server.port);
    await late.connected;
    // A second connection's answer: by then the server has accepted the first one too (it was earlier in the queue).
    const probe = open(server.port);
    await probe.connected;
    probe.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect((await probe.closed).received).toMatch(/^HTTP\/1\.1 200 /);
    const closing = server.close();
    late.socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    const { received } = await late.closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    await closing;
  });

  it("close() does not wait on a connection that never sends a request (a browser's preconnect)", async () => {
    const server = await start({ shutdownGraceMs: 10_000 });
    const silent = open(server.port);
    await silent.connected;
    const probe = open(server.port);
    await probe.connected;
    probe.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await probe.closed;
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await silent.closed).received).toBe('');
  });

  it('close() cuts requests still running after shutdownGraceMs', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const server = await start({
      shutdownGraceMs: 200,
      fetch: () => {
        entered();
        return new Promise<Response>(() => undefined);
      },
    });
    const hanging = fetch(server.url).catch((error: Error) => error);
    await inside;
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await hanging).toBeInstanceOf(Error);
  });
});

describe('startNodeServer configuration errors', () => {
  it('names the option: bad limits, a host that does not resolve, a port in use', async () => {
    await expect(start({ requestTimeoutMs: 0 })).rejects.toMatchObject({ option: 'requestTimeoutMs', code: 'invalid' });
    await expect(start({ headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).rejects.toMatchObject({ option: 'headersTimeoutMs' });
    await expect(start({ host: 'no-such-host.invalid' })).rejects.toMatchObject({ option: 'host', code: 'host_not_found' });
    const taken = await start();
    const error = await start({ port: taken.port }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({
      option: 'port',
      code: 'port_unavailable',
      message: `port ${taken.port} on 127.0.0.1 is in use; pass a free port (0 picks one)`,
    });
  });
});
