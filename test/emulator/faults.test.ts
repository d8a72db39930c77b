// Fault injection: latency, injected errors, lost acknowledgements (503 and dropped connections), determinism.
import { afterEach, describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { createEmulator, startEmulator, type FaultConfig, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY } from '../helpers/fixtures.js';
import { emulator, expectError, uuid } from './helpers.js';

const award = (i = 0) => ({ serviceUserId: 'u1', eventPoints: 1, eventName: `e${i}` });

describe('injected errors', () => {
  it.each([500, 503, 429] as const)('errorRate 1 with %i: answered, nothing applied, a retry with the same key applies', async (status) => {
    const { send } = emulator({ admin: true, faults: { errorRate: 1, errorStatuses: [status], retryAfterSeconds: 7 } });
    const key = uuid();
    const result = await send('POST', paths.points('q'), { body: award(), headers: { IDEMPOTENCY_KEY: key } });
    expect(result.status).toBe(status);
    expect(result.body).toEqual({ success: false, message: expect.any(String) });
    if (status !== 500) expect(result.headers.get('retry-after')).toBe('7');
    if (status === 500) expect(result.body.message).toBe('internal error');
    expect((await send('GET', '/__emulator/state')).body.data.ledger).toHaveLength(0);
    await send('PUT', '/__emulator/faults', { body: {} });
    const retry = await send('POST', paths.points('q'), { body: award(), headers: { IDEMPOTENCY_KEY: key } });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await send('GET', '/__emulator/state')).body.data.ledger).toHaveLength(1);
  });
  it('errors hit reads too, and are logged with the fault', async () => {
    const { send } = emulator({ admin: true, faults: { errorRate: 1, errorStatuses: [503] } });
    expect((await send('GET', paths.pointsOf('q', 'u'))).status).toBe(503);
    const log = (await send('GET', '/__emulator/requests')).body.data;
    expect(log).toEqual([expect.objectContaining({ method: 'GET', status: 503, fault: 'error-503' })]);
  });
  it('errorRate 0.5 under a seed: about half, and the same ones for the same seed', async () => {
    const run = async () => {
      const { send } = emulator({ faults: { errorRate: 0.5, seed: 42 } });
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) statuses.push((await send('GET', paths.pointsOf('q', 'u'))).status);
      return statuses;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    const failed = a.filter((s) => s !== 200).length;
    expect(failed).toBeGreaterThan(60);
    expect(failed).toBeLessThan(140);
    expect(new Set(a.filter((s) => s !== 200))).toEqual(new Set([500, 503, 429]));
  });
  it('a different seed gives a different pattern', async () => {
    const pattern = async (seed: number) => {
      const { send } = emulator({ faults: { errorRate: 0.5, seed } });
      let out = '';
      for (let i = 0; i < 64; i++) out += (await send('GET', paths.pointsOf('q', 'u'))).status === 200 ? '.' : 'x';
      return out;
    };
    expect(await pattern(1)).not.toBe(await pattern(2));
  });
});

describe('lost acknowledgements', () => {
  it("lostAckMode '503': applied, answered 503; the retry replays 200 without applying again", async () => {
    const { send } = emulator({ admin: true, faults: { lostAckRate: 1, lostAckMode: '503' } });
    const key = uuid();
    const first = await send('POST', paths.points('q'), { body: award(), headers: { IDEMPOTENCY_KEY: key } });
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    const retry = await send('POST', paths.points('q'), { body: award(), headers: { IDEMPOTENCY_KEY: key } });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const state = (await send('GET', '/__emulator/state')).body.data;
    expect(state.ledger).toEqual([expect.objectContaining({ idempotencyKey: key, eventPoints: 1 })]);
    const log = (await send('GET', '/__emulator/requests')).body.data;
    expect(log.map((e: { status: number; fault?: string }) => [e.status, e.fault])).toEqual([
      [503, 'lost-ack-503'],
      [200, undefined],
    ]);
  });
  it("lostAckMode 'drop' in-process: app.fetch rejects like a network error, and the award is applied", async () => {
    const app = createEmulator({ apiKeys: [API_KEY], faults: { lostAckRate: 1, lostAckMode: 'drop' } });
    const key = uuid();
    const request = () =>
      app.fetch(
        new Request(`http://emulator${paths.points('q')}`, {
          method: 'POST',
          headers: { API_KEY, 'content-type': 'application/json', IDEMPOTENCY_KEY: key },
          body: JSON.stringify(award()),
        }),
      );
    await expect(request()).rejects.toThrow(TypeError);
    // The retry is a replay of the applied award; lost-ack faults do not hit replays.
    const retry = await request();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });
  it('awards without faults on reads: lostAckRate only touches awards', async () => {
    const { send } = emulator({ faults: { lostAckRate: 1, lostAckMode: '503' } });
    expect((await send('GET', paths.pointsOf('q', 'u'))).status).toBe(200);
  });

  describe('over HTTP', () => {
    let server: RunningEmulator | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    it("'drop' destroys the connection: fetch rejects; the award was applied once; the retry answers 200", async () => {
      server = await startEmulator({ port: 0, apiKeys: [API_KEY], admin: true, faults: { lostAckRate: 1, lostAckMode: 'drop' } });
      const key = uuid();
      const post = () =>
        fetch(`${server!.url}${paths.points('q')}`, {
          method: 'POST',
          headers: { API_KEY, 'content-type': 'application/json', IDEMPOTENCY_KEY: key },
          body: JSON.stringify(award()),
        });
      await expect(post()).rejects.toThrow();
      const retry = await post();
      expect(retry.status).toBe(200);
      expect(server.exportState().ledger).toHaveLength(1);
      const log = await (await fetch(`${server.url}/__emulator/requests`)).json();
      expect(log.data[0]).toMatchObject({ status: 0, fault: 'lost-ack-drop', idempotencyKey: key });
    });
    it("'mixed' under a seed gives both kinds", async () => {
      server = await startEmulator({ port: 0, apiKeys: [API_KEY], admin: true, faults: { lostAckRate: 1, seed: 9 } });
      for (let i = 0; i < 16; i++) {
        await fetch(`${server.url}${paths.points('q')}`, {
          method: 'POST',
          headers: { API_KEY, 'content-type': 'application/json' },
          body: JSON.stringify(award(i)),
        }).then(
          (r) => r.text(),
          () => 'dropped',
        );
      }
      const log = (await (await fetch(`${server.url}/__emulator/requests`)).json()).data as { fault: string }[];
      expect(new Set(log.map((e) => e.fault))).toEqual(new Set(['lost-ack-503', 'lost-ack-drop']));
      expect(server.exportState().ledger).toHaveLength(16);
    });
  });
});

describe('latency', () => {
  it('latencyMs holds the answer back by at least that long; without it the same request answers at once', async () => {
    // Elapsed time can only be longer than the delay under load, never shorter: a lower bound cannot flake.
    const timed = async (send: ReturnType<typeof emulator>['send']) => {
      const started = performance.now();
      const answer = await send('GET', paths.pointsOf('q', 'u'));
      return { status: answer.status, ms: performance.now() - started };
    };
    const slow = await timed(emulator({ faults: { latencyMs: 400, seed: 1 } }).send);
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(395);
    const fast = await timed(emulator().send);
    expect(fast.status).toBe(200);
    expect(fast.ms, 'the emulator itself takes as long as the injected latency').toBeLessThan(slow.ms - 250);
  });
});

describe('fault settings through the admin API', () => {
  it('PUT then GET returns the config with the seed in effect', async () => {
    const { send } = emulator({ admin: true });
    const config: FaultConfig = { seed: 5, latencyMs: 0, errorRate: 0.25, errorStatuses: [503], lostAckRate: 0.1, lostAckMode: 'drop' };
    expect((await send('PUT', '/__emulator/faults', { body: config })).body).toEqual({ success: true, data: config });
    expect((await send('GET', '/__emulator/faults')).body.data).toEqual(config);
  });
  it('without a seed a random one is chosen and reported', async () => {
    const { send } = emulator({ admin: true });
    const data = (await send('PUT', '/__emulator/faults', { body: { errorRate: 0.1 } })).body.data;
    expect(Number.isInteger(data.seed)).toBe(true);
  });
  it.each([
    [{ errorRate: 2 }, 'errorRate must be at most 1'],
    [{ errorRate: '0.5' }, 'errorRate must be a number'],
    [{ errorStatuses: [404] }, 'errorStatuses.0 must be 500, 503 or 429'],
    [{ lostAckMode: 'sometimes' }, "lostAckMode must be '503', 'drop' or 'mixed'"],
    [{ latencyMs: -1 }, 'latencyMs must be at least 0'],
    [{ unknown: 1 }, /unknown/],
  ])('%j -> 400', async (config, message) => {
    const { send } = emulator({ admin: true });
    expectError(await send('PUT', '/__emulator/faults', { body: config }), 400, message);
  });
});
