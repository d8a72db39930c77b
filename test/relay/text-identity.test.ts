import { describe, expect, it } from 'vitest';
import { WELL_FORMED_MESSAGE } from '../../src/protocol/index.js';
import { token } from '../helpers/fixtures.js';
import { award, emulatedRelay } from './helpers.js';

describe('bad text is a 4xx, never a 500', () => {
  it("a batch award with a lone surrogate is rejected 400 on its own; the batch's other award still goes", async () => {
    const { call, totalOf } = emulatedRelay();
    const t = await token({ sub: 'u1' });
    const awards = [award('\ud800', 'u1', 1), award('q', 'u1', 2), award('q', 'u1', 3, { eventName: 'x\udc00' })];
    const res = await call('POST', '/batch/points', { token: t, body: { awards } });
    expect(res.status).toBe(200);
    expect(res.json.results.map(({ idempotencyKey, ...rest }: { idempotencyKey: string }) => rest)).toEqual([
      { outcome: 'rejected', status: 400, message: `questId ${WELL_FORMED_MESSAGE}`, code: 'invalid' },
      { outcome: 'ok' },
      { outcome: 'rejected', status: 400, message: `eventName ${WELL_FORMED_MESSAGE}`, code: 'invalid' },
    ]);
    expect(await totalOf('q', 'u1')).toBe(2);
  });

  it('the single route and identify refuse it with 400 naming the field', async () => {
    const { call } = emulatedRelay();
    const t = await token({ sub: 'u1', email: 'u1@example.com' });
    const single = await call('POST', '/group-quests/q/points', {
      token: t,
      body: { serviceUserId: 'u1', eventPoints: 1, eventDescription: 'a\ud83d' },
    });
    expect([single.status, single.json.message]).toEqual([400, `eventDescription ${WELL_FORMED_MESSAGE}`]);
    const identify = await call('POST', '/users/identify', { token: t, body: { email: 'u1\udfff@example.com' } });
    expect([identify.status, identify.json.message]).toEqual([400, `email ${WELL_FORMED_MESSAGE}`]);
  });

  it.each(['%ED%A0%80', '%ZZ', '%C0%AE', '%E2%80'])(
    'a path segment %s (not percent-encoded UTF-8) -> 400 at the relay and the emulator',
    async (segment) => {
      const { call, direct } = emulatedRelay();
      const t = await token({ sub: 'ops', role: 'admin' });
      const message = `path segment ${JSON.stringify(segment)} is not valid percent-encoded UTF-8`;
      for (const path of [`/group-quests/${segment}/points`, `/group-quests/q/points/${segment}`]) {
        const method = path.endsWith('/points') ? 'POST' : 'GET';
        const options = method === 'POST' ? { body: { serviceUserId: 'u', eventPoints: 1 } } : {};
        const viaRelay = await call(method, path, { token: t, ...options });
        const service = await direct(method, path, options);
        expect([viaRelay.status, viaRelay.json, service.status, service.json]).toEqual([
          400,
          { success: false, message, code: 'invalid' },
          400,
          { success: false, message },
        ]);
      }
    },
  );
});

describe('one identity normalisation, relay and service alike', () => {
  const address = '0xAbC0000000000000000000000000000000000dEf';

  it("a token's wallet 0xAbC… identifying as 0XABC… is the same user as 0xabc…", async () => {
    const { call, direct } = emulatedRelay();
    const t = await token({ sub: 'w1', wallet: { chain: 'eip155:1', address } });
    const shouted = await call('POST', '/users/identify', {
      token: t,
      body: { wallet: { chain: 'eip155:1', address: `0X${address.slice(2).toUpperCase()}` } },
    });
    const plain = await direct('POST', '/users/identify', { body: { wallet: { chain: 'eip155:1', address: address.toLowerCase() } } });
    expect(shouted.status).toBe(200);
    expect(shouted.json.data.serviceUserId).toBe(plain.json.data.serviceUserId);
  });

  it('chain EIP155:1 is eip155:1 for the relay and the service', async () => {
    const { call, direct } = emulatedRelay();
    const t = await token({ sub: 'w2', wallet: { chain: 'eip155:1', address } });
    const upper = await call('POST', '/users/identify', { token: t, body: { wallet: { chain: 'EIP155:1', address } } });
    const lower = await direct('POST', '/users/identify', { body: { wallet: { chain: 'eip155:1', address } } });
    expect([upper.status, upper.json.data.serviceUserId]).toEqual([200, lower.json.data.serviceUserId]);
    // A token carrying the upper-case chain identifies the lower-case one too.
    const t2 = await token({ sub: 'w3', wallet: { chain: ' EIP155:1 ', address: address.toUpperCase().replace('0X', '0x') } });
    expect((await call('POST', '/users/identify', { token: t2, body: { wallet: { chain: 'eip155:1', address } } })).status).toBe(200);
    // Another chain is still another wallet.
    expect((await call('POST', '/users/identify', { token: t, body: { wallet: { chain: 'eip155:10', address } } })).status).toBe(403);
  });
});
