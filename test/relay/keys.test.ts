import { describe, expect, it } from 'vitest';
import { token, upstreamKey } from '../helpers/fixtures.js';
import { caller, emulatedRelay, uuid } from './helpers.js';

const body = (serviceUserId: string, eventPoints: number) => ({ serviceUserId, eventPoints });

describe('per-player idempotency keys', () => {
  it("player B sending A's key first no longer turns A's award into a 422", async () => {
    const { call, totalOf } = emulatedRelay();
    const [alice, bob] = [await token({ sub: 'alice' }), await token({ sub: 'bob' })];
    const [k1, k2] = [uuid(), uuid()];
    expect((await call('POST', '/group-quests/q/points', { token: alice, headers: { IDEMPOTENCY_KEY: k1 }, body: body('alice', 3) })).status).toBe(200);
    // Bob learnt Alice's next key and sends it first.
    expect((await call('POST', '/group-quests/q/points', { token: bob, headers: { IDEMPOTENCY_KEY: k2 }, body: body('bob', 1) })).status).toBe(200);
    const mine = await call('POST', '/group-quests/q/points', { token: alice, headers: { IDEMPOTENCY_KEY: k2 }, body: body('alice', 2) });
    expect([mine.status, mine.json]).toEqual([200, { success: true }]);
    const batch = await call('POST', '/batch/points', { token: alice, body: { awards: [{ questId: 'q', ...body('alice', 2), idempotencyKey: k2 }] } });
    expect(batch.json.results[0].outcome).toBe('ok');
    expect([await totalOf('q', 'alice'), await totalOf('q', 'bob')]).toEqual([5, 1]);
  });

  it('the IETF spelling Idempotency-Key is honoured: the same award sent twice with it is applied once', async () => {
    const { call, totalOf } = emulatedRelay();
    const t = await token({ sub: 'carol' });
    const key = uuid();
    for (let i = 0; i < 2; i++) {
      const res = await call('POST', '/group-quests/q/points', { token: t, headers: { 'Idempotency-Key': key }, body: body('carol', 4) });
      expect(res.status).toBe(200);
    }
    // Either spelling names the same key.
    expect((await call('POST', '/group-quests/q/points', { token: t, headers: { IDEMPOTENCY_KEY: key.toUpperCase() }, body: body('carol', 4) })).status).toBe(200);
    expect(await totalOf('q', 'carol')).toBe(4);
  });

  it('both spellings with different keys -> 400 naming both headers; the same key in both is fine', async () => {
    const { call, totalOf } = emulatedRelay();
    const t = await token({ sub: 'dan' });
    const key = uuid();
    const both = await call('POST', '/group-quests/q/points', { token: t, headers: { IDEMPOTENCY_KEY: key, 'Idempotency-Key': uuid() }, body: body('dan', 1) });
    expect([both.status, both.json.message]).toEqual([400, 'IDEMPOTENCY_KEY and Idempotency-Key headers carry different keys; send one of them']);
    const same = await call('POST', '/group-quests/q/points', { token: t, headers: { IDEMPOTENCY_KEY: key, 'Idempotency-Key': key.toUpperCase() }, body: body('dan', 1) });
    expect(same.status).toBe(200);
    const bad = await call('POST', '/group-quests/q/points', { token: t, headers: { 'Idempotency-Key': 'k1' }, body: body('dan', 1) });
    expect([bad.status, bad.json.message]).toEqual([400, expect.stringMatching(/^Idempotency-Key must be a UUID/)]);
    expect(await totalOf('q', 'dan')).toBe(1);
  });

  it('the upstream key is the same from every instance and after a restart: a retry through another relay is a replay', async () => {
    const { call, relayOn, core, totalOf } = emulatedRelay();
    const t = await token({ sub: 'erin' });
    const key = uuid();
    await call('POST', '/group-quests/q/points', { token: t, headers: { IDEMPOTENCY_KEY: key }, body: body('erin', 7) });
    const other = caller(relayOn().fetch);
    const again = await other('POST', '/batch/points', { token: t, body: { awards: [{ questId: 'q', ...body('erin', 7), idempotencyKey: key }] } });
    expect(again.json.results[0]?.outcome).toBe('ok');
    expect(await totalOf('q', 'erin')).toBe(7);
    // What the service saw: the player's derived key, never the browser's.
    const keys = (core.exportState().ledger ?? []).filter((e) => e.serviceUserId === 'erin').map((e) => e.idempotencyKey);
    expect(keys).toEqual([upstreamKey('erin', key)]);
  });
});
