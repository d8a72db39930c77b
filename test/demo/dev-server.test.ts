import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readToken } from '../../src/sw/token.js';
import {
  ConfigError,
  createDevServer,
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackOrigin,
  startDevServer,
  type RunningDevServer,
} from '../../src/dev/index.js';

const fromSocket = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } as unknown as IncomingMessage });

describe('loopback checks', () => {
  it('knows loopback addresses, hosts and origins', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['10.0.0.1', '0.0.0.0', '::', '::ffff:10.0.0.1', '128.0.0.1', 'localhost', '', undefined])
      expect(isLoopbackAddress(address), String(address)).toBe(false);
    for (const host of ['localhost', 'LOCALHOST', 'game.localhost', '127.0.0.1', '::1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', 'example.com', 'localhost.example.com', '192.168.1.2']) expect(isLoopbackHost(host), host).toBe(false);
    expect(isLoopbackOrigin('http://localhost:5173')).toBe(true);
    expect(isLoopbackOrigin('http://[::1]:8080')).toBe(true);
    expect(isLoopbackOrigin('https://evil.example')).toBe(false);
    expect(isLoopbackOrigin('null')).toBe(false);
  });
});

describe('createDevServer (in-process)', () => {
  const dev = createDevServer({ logger: () => {} });
  const local = fromSocket('127.0.0.1');
  const get = (path: string, init: RequestInit = {}, env = local) => dev.fetch(new Request(`http://127.0.0.1:8787${path}`, init), env);

  it('mints tokens only for a loopback socket, whatever X-Forwarded-For says', async () => {
    const ok = await get('/__dev/token?sub=alice');
    expect(ok.status).toBe(200);
    const body = await ok.json();
    // The token-URL format quest-points/sw reads (and tokenFrom): JSON { token }, with what was minted beside it.
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toEqual({ token: expect.any(String), sub: 'alice', role: 'player', expiresIn: 900 });
    expect(body.token.split('.')).toHaveLength(3);
    expect(await readToken(await get('/__dev/token?sub=alice'))).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(ok.headers.get('cache-control')).toBe('no-store');

    const remote = await get('/__dev/token?sub=alice', { headers: { 'x-forwarded-for': '127.0.0.1' } }, fromSocket('10.1.2.3'));
    expect(remote.status).toBe(403);
    expect(await remote.json()).toEqual({ success: false, message: '/__emulator/* and /__dev/* answer loopback clients only' });
    // No Node socket at all (app.fetch called directly): refused, not assumed local.
    expect((await dev.fetch(new Request('http://127.0.0.1/__dev/token'))).status).toBe(403);
  });

  it('answers every /__emulator/* and /__dev/* route to loopback sockets only', async () => {
    const remote = fromSocket('192.168.1.20');
    for (const [method, path] of [
      ['GET', '/__emulator/state'],
      ['POST', '/__emulator/reset'],
      ['GET', '/__emulator/faults'],
      ['GET', '/__emulator/requests'],
      ['PUT', '/__emulator/mode'],
      ['GET', '/__dev/token'],
      ['GET', '/__dev/anything'],
      ['GET', '/__emulator'],
    ] as const) {
      const response = await get(
        path,
        { method, headers: { 'x-forwarded-for': '127.0.0.1', 'content-type': 'application/json' }, ...(method === 'GET' ? {} : { body: '{}' }) },
        remote,
      );
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((await response.json()).message).toBe('/__emulator/* and /__dev/* answer loopback clients only');
      // No socket (in-process): refused too.
      expect((await dev.fetch(new Request(`http://127.0.0.1${path}`, { method, ...(method === 'GET' ? {} : { body: '{}' }) }))).status, path).toBe(
        403,
      );
    }
    // The state was not reset by the remote POST, and local callers still get through.
    expect((await get('/__emulator/state')).status).toBe(200);
    expect((await get('/__emulator/state', {}, fromSocket('::ffff:127.0.0.1'))).status).toBe(200);
    expect((await get('/__emulator/state', {}, fromSocket('::1'))).status).toBe(200);
  });

  it('validates the token query and names the field', async () => {
    const bad = await get('/__dev/token?role=root');
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toBe('role must be player or admin');
    const badWallet = await get('/__dev/token?sub=a&chain=ethereum');
    expect((await badWallet.json()).message).toMatch(/^wallet\.address /);
  });

  it('refuses a Host header that is not loopback (DNS rebinding) and non-loopback origins', async () => {
    const rebound = await get('/__dev/token', { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
    const foreign = await get('/__emulator/mode', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).message).toMatch(/origin "https:\/\/evil.example" is refused/);
  });

  it('lets a page on another loopback port call the relay (CORS), preflight included', async () => {
    const token = await dev.mintToken({ sub: 'cors-player' });
    const preflight = await get('/api/batch/points', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const read = await get('/api/group-quests/q/points/cors-player', {
      headers: { origin: 'http://localhost:5173', authorization: `Bearer ${token}` },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('routes /api to the relay, whose upstream is the emulator in-process', async () => {
    const token = await dev.mintToken({ sub: 'bob' });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const key = randomUUID();
    const award = () =>
      get('/api/group-quests/q1/points', {
        method: 'POST',
        headers: { ...auth, IDEMPOTENCY_KEY: key },
        body: JSON.stringify({ serviceUserId: 'bob', eventPoints: 7, eventName: 'anything_goes' }),
      });
    expect((await award()).status).toBe(200);
    expect((await award()).status).toBe(200); // replayed, not applied again
    const points = await (await get('/api/group-quests/q1/points/bob', { headers: auth })).json();
    expect(points.data.totalPoints).toBe(7);
    expect(points.data.history).toHaveLength(1);
    expect((await get('/api/group-quests/q1/points/bob')).status).toBe(401);
  });

  it('applies the dev policy: unknown events allowed, awards capped at 1000 points', async () => {
    const token = await dev.mintToken({ sub: 'carol' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const over = await get('/api/group-quests/q1/points', {
      method: 'POST',
      headers,
      body: JSON.stringify({ serviceUserId: 'carol', eventPoints: 1001, eventName: 'x' }),
    });
    expect(over.status).toBeGreaterThanOrEqual(400);
    expect(over.status).toBeLessThan(500);
  });

  it('routes /__emulator to the emulator admin routes (mode switch)', async () => {
    expect(await (await get('/__emulator/mode')).json()).toMatchObject({ success: true, data: { mode: 'stateful' } });
    const put = await get('/__emulator/mode', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'sandbox' }),
    });
    expect(put.status).toBe(200);
    const admin = await dev.mintToken({ sub: 'designer', role: 'admin' });
    const enrolled = await get('/api/group-quests/q1/enrolled-users/user_not_enrolled', { headers: { authorization: `Bearer ${admin}` } });
    expect(enrolled.status).toBe(404);
    expect(await enrolled.json()).toEqual({ success: false, message: 'User is not enrolled in the quest' });
  });

  it('answers unknown dev paths 404 with the standard error body', async () => {
    const response = await get('/__dev/nothing');
    expect(response.status).toBe(404);
    expect((await response.json()).success).toBe(false);
  });
});

describe('startDevServer and `quest-points dev`', () => {
  let running: RunningDevServer;
  beforeAll(async () => {
    running = await startDevServer({ port: 0, logger: () => {} });
  });
  afterAll(() => running.close());

  it('serves every face on one loopback port', async () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const token = await fetch(`${running.urls.token}?sub=dave`);
    expect(token.status).toBe(200);
    const { token: dave } = await token.json();
    const points = await fetch(`${running.urls.relay}/group-quests/q/points/dave`, { headers: { authorization: `Bearer ${dave}` } });
    expect(points.status).toBe(200);
    expect((await fetch(`${running.urls.emulator}/faults`)).status).toBe(200);
  });

  it('refuses a non-loopback host', async () => {
    await expect(startDevServer({ host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ name: 'ConfigError', code: 'not_loopback', option: 'host' });
    await expect(startDevServer({ host: '0.0.0.0', port: 0 })).rejects.toBeInstanceOf(ConfigError);
  });

  it('a host that does not resolve is a ConfigError naming it, not an uncaught ENOTFOUND', async () => {
    await expect(startDevServer({ host: 'nothing-here.localhost', port: 0 })).rejects.toMatchObject({
      code: 'host_not_found',
      option: 'host',
      message: expect.stringMatching(/^host "nothing-here\.localhost" does not resolve to an address \(E[A-Z]+\)$/),
    });
  });

  const cli = (args: string[]) => spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'dev', ...args], { cwd: `${import.meta.dirname}/../..` });

  it('the CLI prints `listening on http://HOST:PORT` per face and serves it', async () => {
    const child = cli(['--port', '0']);
    try {
      const out = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk) => {
          text += chunk;
          if (text.split('listening on').length > 3) resolve(text);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      const urls = [...out.matchAll(/^(\w+)\s+listening on (http:\/\/127\.0\.0\.1:\d+)(\/\S*)$/gm)].map((m) => [m[1], m[2], m[3]]);
      expect(urls.map((u) => u[0])).toEqual(['relay', 'emulator', 'tokens']);
      expect(urls.map((u) => u[2])).toEqual(['/api', '/__emulator', '/__dev/token']);
      const response = await fetch(`${urls[1]![1]}/__emulator/mode`);
      expect(await response.json()).toMatchObject({ data: { mode: 'stateful' } });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('the CLI refuses --host 0.0.0.0 with a clear error and exit code 2', async () => {
    const child = cli(['--host', '0.0.0.0', '--port', '0']);
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/refuses to listen on "0\.0\.0\.0".*loopback/s);
  });

  it('the CLI answers a --host that does not resolve with one line and exit code 2, no stack', async () => {
    const child = cli(['--host', 'foo.localhost', '--port', '0']);
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toEqual([
      expect.stringMatching(/^quest-points dev: host "foo\.localhost" does not resolve to an address \(E[A-Z]+\)$/),
    ]);
  });
});
