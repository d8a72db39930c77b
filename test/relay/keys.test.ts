import { v5 as uuidv5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { ConfigError, createRelay, signPlayerToken, upstreamIdempotencyKey } from '../../src/relay/index.js';
import { MISSING_KEY_SECRET } from '../../src/relay/keys.js';
import { secretKey, verifyPlayerToken } from '../../src/relay/token.js';
import { API_KEY, KEY_SECRET, OTHER_SECRET, SECRET, token, upstreamKey } from '../helpers/fixtures.js';
import { caller, emulatedRelay, fakeRelay, uuid } from './helpers.js';

const body = (serviceUserId: string, eventPoints: number) => ({ serviceUserId, eventPoints });

describe('per-player idempotency keys', () => {
  it("player B sending A's key first no longer turns A's award into a 422", async () => {
    const { call, totalOf } = emulatedRelay();
    const [alice, bob] = [await token({ sub: 'alice' }), await token({ sub: 'bob' })];
    const [k1, k2] = [uuid(), uuid()];
    expect((await call('POST', '/group-quests/q/points', { token: alice, headers: { IDEMPOTENCY_KEY: k1 }, body: body('alice', 3) })).status).toBe(
      200,
    );
    // Bob learnt Alice's next key and sends it first.
    expect((await call('POST', '/group-quests/q/points', { token: bob, headers: { IDEMPOTENCY_KEY: k2 }, body: body('bob', 1) })).status).toBe(200);
    const mine = await call('POST', '/group-quests/q/points', { token: alice, headers: { IDEMPOTENCY_KEY: k2 }, body: body('alice', 2) });
    expect([mine.status, mine.json]).toEqual([200, { success: true }]);
    const batch = await call('POST', '/batch/points', {
      token: alice,
      body: { awards: [{ questId: 'q', ...body('alice', 2), idempotencyKey: k2 }] },
    });
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
    expect(
      (await call('POST', '/group-quests/q/points', { token: t, headers: { IDEMPOTENCY_KEY: key.toUpperCase() }, body: body('carol', 4) })).status,
    ).toBe(200);
    expect(await totalOf('q', 'carol')).toBe(4);
  });

  it('both spellings with different keys -> 400 naming both headers; the same key in both is fine', async () => {
    const { call, totalOf } = emulatedRelay();
    const t = await token({ sub: 'dan' });
    const key = uuid();
    const both = await call('POST', '/group-quests/q/points', {
      token: t,
      headers: { IDEMPOTENCY_KEY: key, 'Idempotency-Key': uuid() },
      body: body('dan', 1),
    });
    expect([both.status, both.json.message]).toEqual([400, 'IDEMPOTENCY_KEY and Idempotency-Key headers carry different keys; send one of them']);
    const same = await call('POST', '/group-quests/q/points', {
      token: t,
      headers: { IDEMPOTENCY_KEY: key, 'Idempotency-Key': key.toUpperCase() },
      body: body('dan', 1),
    });
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

describe('the key secret', () => {
  const upstream = { url: 'http://service.test', apiKey: API_KEY, fetch: async () => Response.json({ success: true }) };

  it('a relay without one refuses to start with one line naming QP_KEY_SECRET and the migration', () => {
    const saved = process.env.QP_KEY_SECRET;
    delete process.env.QP_KEY_SECRET;
    try {
      let refusal: unknown;
      try {
        createRelay({ secret: SECRET, upstream });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ConfigError);
      expect(refusal).toMatchObject({ option: 'keySecret', code: 'missing', message: MISSING_KEY_SECRET });
      expect(MISSING_KEY_SECRET).not.toContain('\n');
      expect(MISSING_KEY_SECRET).toContain('Set QP_KEY_SECRET to your current QP_RELAY_SECRET to keep every upstream key');
      // The operator's own authenticate() does not change that: the key secret is not a token secret.
      expect(() => createRelay({ authenticate: async () => ({ sub: 'a' }), upstream })).toThrow(MISSING_KEY_SECRET);
      expect(() => createRelay({ secret: SECRET, keySecret: 'short', upstream })).toThrow('QP_KEY_SECRET (keySecret) must be at least 32 characters');
      // ...except the API key an authenticate() deployment used as its namespace before, whatever its length.
      const shortKey = { ...upstream, apiKey: 'short-api-key' };
      expect(() => createRelay({ authenticate: async () => ({ sub: 'a' }), keySecret: 'short-api-key', upstream: shortKey })).not.toThrow();
    } finally {
      if (saved !== undefined) process.env.QP_KEY_SECRET = saved;
    }
  });

  it('set to the former relay secret, it keeps every upstream key: the derivation is unchanged', async () => {
    const { call, core } = emulatedRelay({ keySecret: SECRET });
    const key = uuid();
    expect(
      (
        await call('POST', '/group-quests/q/points', {
          token: await token({ sub: 'frank' }),
          headers: { IDEMPOTENCY_KEY: key },
          body: body('frank', 2),
        })
      ).status,
    ).toBe(200);
    // What a relay from before the key secret sent: UUIDv5 under a namespace derived from the relay secret.
    const before = uuidv5(JSON.stringify(['frank', key.toLowerCase()]), uuidv5(SECRET, 'b7f4c1de-3a52-5e8b-9d60-2c1f0a7e4b39'));
    const keys = (core.exportState().ledger ?? []).filter((e) => e.serviceUserId === 'frank').map((e) => e.idempotencyKey);
    expect(keys).toEqual([before]);
    expect(upstreamIdempotencyKey(SECRET, 'frank', key)).toBe(before);
    // The same derivation for any player id (hashed by node:crypto here, by uuid where there is none): UTF-8 names.
    const namespace = uuidv5(SECRET, 'b7f4c1de-3a52-5e8b-9d60-2c1f0a7e4b39');
    for (const sub of ['jörg', 'プレイヤー', '😀-\u{10FFFF}', 'a"b\\c']) {
      expect(upstreamIdempotencyKey(SECRET, sub, key)).toBe(uuidv5(JSON.stringify([sub, key.toLowerCase()]), namespace));
    }
  });

  it('token secrets from the environment: QP_RELAY_SECRET signs, QP_RELAY_SECRET_PREVIOUS still verifies', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { QP_RELAY_SECRET: OTHER_SECRET, QP_RELAY_SECRET_PREVIOUS: SECRET, QP_KEY_SECRET: KEY_SECRET });
    try {
      const relay = caller(createRelay({ upstream, policy: { allowUnknownEvents: true }, logger: () => {} }).fetch);
      const read = async (jwt: string) => (await relay('GET', '/group-quests/q/points/alice', { token: jwt })).status;
      expect(await read(await signPlayerToken({ sub: 'alice' }, { secret: SECRET }))).toBe(200);
      expect(await read(await signPlayerToken({ sub: 'alice' }, { secret: OTHER_SECRET }))).toBe(200);
      expect(await read(await signPlayerToken({ sub: 'alice' }, { secret: 'a-third-secret-nobody-configured-0123456789' }))).toBe(401);
      delete process.env.QP_RELAY_SECRET;
      expect(() => createRelay({ upstream })).toThrow('QP_RELAY_SECRET_PREVIOUS is set without QP_RELAY_SECRET');
    } finally {
      for (const name of ['QP_RELAY_SECRET', 'QP_RELAY_SECRET_PREVIOUS', 'QP_KEY_SECRET']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('the key secret and every token secret are masked in logs and answers', async () => {
    const { call, logs } = fakeRelay({
      secret: [SECRET, OTHER_SECRET],
      upstream: { retries: 0 },
      reply: () => Response.json({ success: false, message: `bad ${KEY_SECRET} ${OTHER_SECRET} ${SECRET}` }, { status: 500 }),
    });
    const res = await call('GET', '/group-quests/q/points/u1', { token: await token({ sub: 'u1' }) });
    expect(res.status).toBe(502);
    const text = JSON.stringify(logs) + res.text;
    expect(text).toContain('[redacted] [redacted] [redacted]');
    for (const secret of [KEY_SECRET, OTHER_SECRET, SECRET]) expect(text).not.toContain(secret);
  });

  it('signPlayerToken given the rotation list signs with its first secret', async () => {
    const jwt = await signPlayerToken({ sub: 'alice' }, { secret: [OTHER_SECRET, SECRET] });
    expect((await verifyPlayerToken(jwt, secretKey(OTHER_SECRET))).ok).toBe(true);
    expect(await verifyPlayerToken(jwt, secretKey(SECRET))).toEqual({ ok: false, message: 'token signature invalid' });
    expect((await verifyPlayerToken(jwt, [secretKey(SECRET), secretKey(OTHER_SECRET)])).ok).toBe(true);
  });
});
