// Request facts are read in one place (src/relay/context.ts): off Node's request only when the Request the app was
// handed is the socket's own, otherwise from that Request, so a wrapper in front of the relay is never bypassed.
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { startNodeServer, type RunningServer } from '../../src/kit/index.js';
import { requestHeader, socketExchange, type RelayEnv } from '../../src/relay/context.js';

const servers: RunningServer[] = [];
afterAll(() => Promise.all(servers.map((server) => server.close())));

/** An app that says what it read: whether it read the socket, and the x-seen header. */
const reader = new Hono<RelayEnv>().all('*', (c) => c.json({ socket: socketExchange(c) !== undefined, seen: requestHeader(c, 'x-seen') ?? null }));

describe('request facts', () => {
  it("read off Node's request when the app is handed the socket's own Request (the cheap way)", async () => {
    const server = await startNodeServer({ host: '127.0.0.1', port: 0, fetch: (request, env) => reader.fetch(request, env) });
    servers.push(server);
    const answer = await (await fetch(server.url, { headers: { 'x-seen': 'socket' } })).json();
    // @hono/node-server's lightweight Request is recognised: were it not (a new adapter version), this says so.
    expect(answer).toEqual({ socket: true, seen: 'socket' });
  });

  it('read from the Request a wrapper hands the app, never past it', async () => {
    const server = await startNodeServer({
      host: '127.0.0.1',
      port: 0,
      fetch: (request, env) => {
        const headers = new Headers(request.headers);
        headers.set('x-seen', 'wrapper');
        return reader.fetch(new Request(request, { headers }), env);
      },
    });
    servers.push(server);
    expect(await (await fetch(server.url, { headers: { 'x-seen': 'socket' } })).json()).toEqual({ socket: false, seen: 'wrapper' });
  });
});
