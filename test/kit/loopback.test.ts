// The loopback-only guard on the emulator's admin routes: in front of the app, by the caller's socket address.
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { loopbackOnly, type NodeBindings } from '../../src/kit/index.js';

const from = (remoteAddress: string | undefined): NodeBindings => ({ incoming: { socket: { remoteAddress } } as unknown as IncomingMessage });

describe('loopbackOnly', () => {
  const guarded = loopbackOnly('/__emulator/', 'admin: loopback callers only', () => new Response('answered'));
  const call = async (path: string, address: string | undefined) => {
    const res = await guarded(new Request(`http://emulator.test${path}`), from(address));
    return [res.status, await res.text()];
  };

  it('answers loopback callers, IPv4, IPv6 and IPv4-mapped', async () => {
    for (const address of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1'])
      expect(await call('/__emulator/state', address), address).toEqual([200, 'answered']);
  });

  it('refuses any other caller under the prefix with 403 and the message, and lets the rest through', async () => {
    for (const address of ['192.0.2.2', '10.0.0.1', 'fd00::2', '::ffff:10.0.0.1', undefined])
      expect(await call('/__emulator/reset', address), String(address)).toEqual([
        403,
        JSON.stringify({ success: false, message: 'admin: loopback callers only' }),
      ]);
    expect(await call('/group-quests/q/points', '192.0.2.2')).toEqual([200, 'answered']);
  });
});

describe('startEmulator with admin on', () => {
  let running: RunningEmulator | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('answers its admin routes to a caller on this machine', async () => {
    running = await startEmulator({ port: 0, admin: true });
    const res = await fetch(`${running.url}/__emulator/state`);
    expect(res.status).toBe(200);
    expect((await res.json()).success).toBe(true);
  });
});
