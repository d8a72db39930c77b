// IDEMPOTENCY_KEY: replay, 422, 409 under real concurrency, 400 for a non-UUID, expiry, scope per API key.
import { afterEach, describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { buildEmulator, startEmulator, type RunningServer } from '../../src/emulator/index.js';
import { API_KEY } from '../helpers/fixtures.js';
import { emulator, expectError, uuid } from './helpers.js';

const body = { serviceUserId: 'u1', eventPoints: 10, eventName: 'Quest' };
const withKey = (key: string) => ({ IDEMPOTENCY_KEY: key });

describe('IDEMPOTENCY_KEY', () => {
  it('a repeat of a finished request replays status and body without applying again', async () => {
    const { send } = emulator();
    const key = uuid();
    const first = await send('POST', paths.points('q'), { body, headers: withKey(key) });
    const again = await send('POST', paths.points('q'), { body, headers: withKey(key) });
    expect(first).toMatchObject({ status: 200, body: { success: true } });
    expect(again).toMatchObject({ status: 200, body: { success: true } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(10);
  });
  it('keys compare case-insensitively', async () => {
    const { send } = emulator();
    const key = uuid();
    await send('POST', paths.points('q'), { body, headers: withKey(key) });
    await send('POST', paths.points('q'), { body, headers: withKey(key.toUpperCase()) });
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.history).toHaveLength(1);
  });
  it('the same key with a different body -> 422, nothing applied', async () => {
    const { send } = emulator();
    const key = uuid();
    await send('POST', paths.points('q'), { body, headers: withKey(key) });
    expectError(
      await send('POST', paths.points('q'), { body: { ...body, eventPoints: 11 }, headers: withKey(key) }),
      422,
      'IDEMPOTENCY_KEY was already used with a different request; use a new key for a new award',
    );
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(10);
  });
  it('the same key on another quest is a different request -> 422', async () => {
    const { send } = emulator();
    const key = uuid();
    await send('POST', paths.points('q1'), { body, headers: withKey(key) });
    expect((await send('POST', paths.points('q2'), { body, headers: withKey(key) })).status).toBe(422);
  });
  it('defaults make no difference: omitted eventName equals DefaultPointsEvent', async () => {
    const { send } = emulator();
    const key = uuid();
    await send('POST', paths.points('q'), { body: { serviceUserId: 'u', eventPoints: 1 }, headers: withKey(key) });
    const again = await send('POST', paths.points('q'), {
      body: { eventPoints: 1, eventName: 'DefaultPointsEvent', serviceUserId: 'u', eventDescription: '' },
      headers: withKey(key),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
  it.each(['not-a-uuid', '', '12345', `${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(11)}`, `{${uuid()}}`])(
    'a key that is not a UUID (%j) -> 400 naming the header',
    async (key) => {
      const { send } = emulator();
      expectError(await send('POST', paths.points('q'), { body, headers: withKey(key) }), 400, /^IDEMPOTENCY_KEY header must be a UUID/);
      expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(0);
    },
  );
  it('validation errors are not stored: the key can be used once the body is fixed', async () => {
    const { send } = emulator();
    const key = uuid();
    expect((await send('POST', paths.points('q'), { body: { serviceUserId: 'u1' }, headers: withKey(key) })).status).toBe(400);
    expect((await send('POST', paths.points('q'), { body, headers: withKey(key) })).status).toBe(200);
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(10);
  });
  it('keys are scoped per API key', async () => {
    const { send } = emulator({ apiKeys: ['key-a', 'key-b'] });
    const key = uuid();
    await send('POST', paths.points('q'), { body, headers: withKey(key), apiKey: 'key-a' });
    const other = await send('POST', paths.points('q'), { body, headers: withKey(key), apiKey: 'key-b' });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect((await send('GET', paths.pointsOf('q', 'u1'), { apiKey: 'key-a' })).body.data.totalPoints).toBe(20);
  });
  it('keys expire after the TTL (by the clock), then apply again', async () => {
    let clock = 1_000_000;
    const { send } = emulator({ idempotencyTtlMs: 60_000, now: () => clock });
    const key = uuid();
    await send('POST', paths.points('q'), { body, headers: withKey(key) });
    clock += 59_999;
    expect((await send('POST', paths.points('q'), { body, headers: withKey(key) })).headers.get('idempotent-replayed')).toBe('true');
    clock += 2;
    expect((await send('POST', paths.points('q'), { body, headers: withKey(key) })).headers.get('idempotent-replayed')).toBeNull();
    expect((await send('GET', paths.pointsOf('q', 'u1'))).body.data.totalPoints).toBe(20);
  });
  it('the default TTL is 24 h', async () => {
    let clock = 0;
    const { send } = emulator({ now: () => clock });
    const key = uuid();
    await send('POST', paths.points('q'), { body, headers: withKey(key) });
    clock = 24 * 3600 * 1000 - 1;
    expect((await send('POST', paths.points('q'), { body, headers: withKey(key) })).headers.get('idempotent-replayed')).toBe('true');
    clock = 24 * 3600 * 1000 + 1;
    expect((await send('POST', paths.points('q'), { body, headers: withKey(key) })).headers.get('idempotent-replayed')).toBeNull();
  });
  it('the key is recorded on the ledger entry it applied', async () => {
    const { send } = emulator({ admin: true });
    const key = uuid();
    await send('POST', paths.points('q'), { body, headers: withKey(key) });
    await send('POST', paths.points('q'), { body });
    const ledger = (await send('GET', '/__emulator/state')).body.data.ledger;
    expect(ledger.map((e: { idempotencyKey: string | null }) => e.idempotencyKey)).toEqual([key, null]);
  });
  it('the key is ignored on other endpoints', async () => {
    const { send } = emulator();
    expect((await send('GET', paths.pointsOf('q', 'u'), { headers: withKey('nonsense') })).status).toBe(200);
  });
});

/** An emulator app on loopback HTTP, for tests that need its core too. */
function listen(fetch: Parameters<typeof serve>[0]['fetch']): Promise<RunningServer> {
  return new Promise((resolve) => {
    const http = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, port: info.port, close: () => new Promise((done) => http.close(() => done())) }),
    );
  });
}

describe('IDEMPOTENCY_KEY under real concurrency (HTTP)', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const post = (url: string, key: string, payload: unknown = body) =>
    fetch(`${url}${paths.points('q')}`, {
      method: 'POST',
      headers: { API_KEY, 'content-type': 'application/json', IDEMPOTENCY_KEY: key },
      body: JSON.stringify(payload),
    });

  it('a repeat while the first is in flight -> 409; afterwards it replays; applied once', async () => {
    // The emulator holds an award's answer for latencyMs *after* claiming its key. The test waits for that claim
    // (a spy on the store), not for a guessed time, so the repeat is known to meet the first in flight.
    const { app, core } = buildEmulator({ apiKeys: [API_KEY], faults: { latencyMs: 1500, seed: 1 } });
    const claims: string[] = [];
    const claim = core.idempotency.claim;
    core.idempotency.claim = (...args) => {
      const result = claim(...args);
      claims.push(`${args[1]} ${result.kind}`);
      return result;
    };
    server = await listen(app.fetch);
    const key = uuid();
    const first = post(server.url, key);
    await expect.poll(() => claims, { timeout: 5_000, interval: 10 }).toContain(`${key} new`);
    const second = await post(server.url, key);
    expect(claims).toContain(`${key} in-flight`);
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({ success: false, message: expect.stringMatching(/still being processed/) });
    expect((await first).status).toBe(200);
    const third = await post(server.url, key);
    expect(third.status).toBe(200);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(core.exportState().ledger).toHaveLength(1);
  });
  it('many simultaneous requests with one key: exactly one applies', async () => {
    const running = await startEmulator({ port: 0, apiKeys: [API_KEY], faults: { latencyMs: 50, seed: 2 } });
    server = running;
    const key = uuid();
    const statuses = await Promise.all(Array.from({ length: 20 }, () => post(running.url, key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(running.exportState().ledger).toHaveLength(1);
  });
});
