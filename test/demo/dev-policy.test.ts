// The dev relay's policy, edited live (GET/PUT /__dev/policy, the designer console's policy editor): the next award
// follows the new policy, tokens and keys carry on, bad input is a 400 naming the rule, and only this machine may call.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createDevServer } from '../../src/dev/index.js';
import { DEV_POLICY } from '../../src/dev/policy.js';
import { until } from '../helpers/until.js';

const local = { incoming: { socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage };
const remote = { incoming: { socket: { remoteAddress: '10.1.2.3' } } as unknown as IncomingMessage };

describe('GET/PUT /__dev/policy', () => {
  const dev = createDevServer({ logger: () => {} });
  const call = (path: string, init: RequestInit = {}, env = local) => dev.fetch(new Request(`http://127.0.0.1:5173${path}`, init), env);
  const put = (body: unknown, env = local) =>
    call('/__dev/policy', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, env);

  async function award(token: string, eventName: string, eventPoints: number) {
    const response = await call('/api/group-quests/q/points', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
      body: JSON.stringify({ serviceUserId: 'dev-player', eventPoints, eventName }),
    });
    return { status: response.status, body: (await response.json()) as { message?: string } };
  }
  const total = async (token: string) => {
    const response = await call('/api/group-quests/q/points/dev-player', { headers: { authorization: `Bearer ${token}` } });
    return ((await response.json()) as { data: { totalPoints: number } }).data.totalPoints;
  };

  it('answers the policy in force, and a PUT applies to the next award with the token minted before it', async () => {
    expect(await (await call('/__dev/policy')).json()).toEqual({ policy: DEV_POLICY, file: null });
    const token = await dev.mintToken();
    expect((await award(token, 'coin', 40)).status).toBe(200);

    const policy = { allowUnknownEvents: false, maxPointsPerAward: 50, events: { coin: { points: 3 }, boss: { maxPoints: 20 } } };
    const applied = await put({ policy });
    expect(applied.status).toBe(200);
    expect(await applied.json()).toEqual({ policy });
    expect(await (await call('/__dev/policy')).json()).toEqual({ policy, file: null });

    // coin is now worth exactly 3 (the relay never rewrites an amount: another one is refused, naming the rule);
    // boss at most 20; an event the policy does not name is refused.
    expect((await award(token, 'coin', 3)).status).toBe(200);
    expect(await total(token)).toBe(43);
    const mismatch = await award(token, 'coin', 40);
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.message).toMatch(/eventPoints 40 does not match .*coin.*points 3/);
    const tooMuch = await award(token, 'boss', 25);
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.message).toMatch(/boss/);
    expect((await award(token, 'unnamed', 1)).status).toBe(422);
  });

  it("keeps the economy's state and the ledger over a policy edit: a spent budget stays spent, a once-only event stays claimed", async () => {
    const player = `economy-${crypto.randomUUID().slice(0, 8)}`;
    const token = await dev.mintToken({ sub: player });
    const admin = await dev.mintToken({ sub: 'designer', role: 'admin' });
    const send = async (eventName: string, eventPoints: number) => {
      const response = await call('/api/group-quests/q/points', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: player, eventPoints, eventName }),
      });
      return [response.status, ((await response.json()) as { code?: string }).code];
    };
    const policy = {
      allowUnknownEvents: true,
      events: { coin: { maxPoints: 10 }, 'first-win': { points: 50, once: true } },
      budgets: [{ name: 'coins', points: 20, window: 'hour', event: 'coin' }],
    };
    expect((await put({ policy })).status).toBe(200);
    expect([await send('coin', 10), await send('coin', 10), await send('first-win', 50)]).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    // The designer edits something else: the new relay reads the same economy store and ledger.
    expect((await put({ policy: { ...policy, maxPointsPerAward: 500 } })).status).toBe(200);
    expect([await send('coin', 10), await send('first-win', 50)]).toEqual([
      [422, 'budget'],
      [422, 'once'],
    ]);
    // The ledger is written after the answers (fire-and-forget): read until the five decisions are in.
    const entries = await until(async () => {
      const ledger = await call(`/api/admin/ledger?player=${player}`, { headers: { authorization: `Bearer ${admin}` } });
      const lines = ledger.status === 200 ? (await ledger.text()).split('\n').filter(Boolean) : [];
      const read = lines.map((line) => JSON.parse(line) as { outcome?: string; code?: string }).filter((e) => e.outcome);
      return read.filter((e) => e.outcome !== 'forwarded').length >= 5 ? read : undefined;
    }, 'five decisions in the dev ledger');
    expect(entries.filter((e) => e.outcome === 'acknowledged')).toHaveLength(3);
    expect(entries.filter((e) => e.outcome === 'refused').map((e) => e.code)).toEqual(['budget', 'once']);
  });

  it('refuses a policy that breaks a rule (400 naming it), a file path, and callers off this machine', async () => {
    const bad = await put({ policy: { events: { coin: { points: 1, maxPoints: 2 } } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toBe('policy: events.coin must set points or maxPoints, not both');
    const path = await put({ policy: '/etc/passwd' });
    expect(path.status).toBe(400);
    expect(((await path.json()) as { message: string }).message).toMatch(/as an object/);
    expect((await put({ policy: {} }, remote)).status).toBe(403);
    expect((await call('/__dev/policy', {}, remote)).status).toBe(403);
    // The refused ones changed nothing.
    expect(((await (await call('/__dev/policy')).json()) as { policy: unknown }).policy).not.toEqual({});
  });
});
