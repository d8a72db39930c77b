// The economy rules through the relay (memory store): each rule refuses with its code, status and a message naming
// the rule; a resend of the same award is not counted twice; a final refusal of the service releases what the award
// reserved, an unknown outcome keeps it; onceKey is never forwarded; validate() refuses or holds; admins are exempt.
import { describe, expect, it } from 'vitest';
import { createMemoryEconomyStore, createMemoryRecordStore, type RelayPolicy } from '../../src/relay/index.js';
import { token } from '../helpers/fixtures.js';
import { fakeRelay } from './helpers.js';

const POLICY: RelayPolicy = {
  events: {
    coin: { maxPoints: 10 },
    'first-win': { points: 50, once: true },
    jump: { maxPoints: 5, cooldownSeconds: 60 },
  },
  budgets: [{ points: 25, window: 'day', timeZone: 'Europe/Paris', event: 'coin' }],
  campaigns: { winter: { startsAt: '2020-01-01T00:00:00Z', endsAt: '2021-01-01T00:00:00Z' }, later: { startsAt: '2999-01-01T00:00:00Z' } },
  bans: ['cheater'],
};

const setup = (options: Parameters<typeof fakeRelay>[0] = {}) => {
  const economyStore = createMemoryEconomyStore();
  const relay = fakeRelay({ policy: POLICY, economyStore, idempotency: { store: createMemoryRecordStore() }, ...options });
  const award = async (sub: string, body: Record<string, unknown>, key: string | undefined = crypto.randomUUID(), quest = 'q') =>
    relay.call('POST', `/group-quests/${quest}/points`, {
      token: await token({ sub }),
      body: { serviceUserId: sub, ...body },
      headers: key === undefined ? {} : { 'Idempotency-Key': key },
    });
  return { ...relay, economyStore, award };
};

describe('economy rules (memory)', () => {
  it('budget: points over the window are refused 422 budget, naming the rule and when it resets', async () => {
    const { award, seen } = setup();
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(200);
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(200);
    const over = await award('a', { eventName: 'coin', eventPoints: 10 });
    expect(over.status).toBe(422);
    expect(over.json.code).toBe('budget');
    expect(over.json.message).toMatch(/^budget budgets\[0\] \(25 points per day, event "coin"\) is spent until \d{4}-\d\d-\d\dT00:00:00\+0[12]:00/);
    // 5 points still fit; another player has their own budget.
    expect((await award('a', { eventName: 'coin', eventPoints: 5 })).status).toBe(200);
    expect((await award('b', { eventName: 'coin', eventPoints: 10 })).status).toBe(200);
    expect(seen).toHaveLength(4);
  });

  it('a resend of the same award (same key) is not counted twice', async () => {
    const { award } = setup({ idempotency: false });
    const key = crypto.randomUUID();
    for (let i = 0; i < 4; i++) expect((await award('a', { eventName: 'coin', eventPoints: 10 }, key)).status).toBe(200);
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(200);
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).json.code).toBe('budget');
  });

  it("the service's final refusal releases the reservation; an unknown outcome keeps it", async () => {
    let answer = 422;
    const { award } = setup({ reply: () => Response.json({ success: answer < 300 }, { status: answer }), upstream: { retries: 0 } });
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(422);
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(422);
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(422);
    answer = 200;
    // Released: the three refused awards count nowhere.
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(200);
    answer = 503;
    expect((await award('a', { eventName: 'coin', eventPoints: 10 })).status).toBe(503);
    answer = 200;
    // Kept: the 503 may have been applied; 20 of 25 are counted.
    const over = await award('a', { eventName: 'coin', eventPoints: 10 });
    expect(over.json.code).toBe('budget');
  });

  it('once: the first award of an achievement applies, the second is refused 422 once; onceKey is never forwarded', async () => {
    const { award, seen } = setup();
    expect((await award('a', { eventName: 'first-win', eventPoints: 50 })).status).toBe(200);
    const again = await award('a', { eventName: 'first-win', eventPoints: 50 });
    expect(again.status).toBe(422);
    expect(again.json).toMatchObject({ code: 'once' });
    expect(again.json.message).toContain('events.first-win.once');
    // Per quest, and per onceKey.
    expect((await award('a', { eventName: 'first-win', eventPoints: 50 }, undefined, 'q2')).status).toBe(200);
    expect((await award('a', { eventName: 'first-win', eventPoints: 50, onceKey: 'level-1' })).status).toBe(200);
    expect((await award('a', { eventName: 'first-win', eventPoints: 50, onceKey: 'level-1' })).json.code).toBe('once');
    expect((await award('a', { eventName: 'first-win', eventPoints: 50, onceKey: 'level-2' })).status).toBe(200);
    expect(seen).toHaveLength(4);
    for (const request of seen) expect(request.body).not.toHaveProperty('onceKey');
  });

  it('once: a resend of the acknowledged award is answered from the record, not refused', async () => {
    const { award } = setup();
    const key = crypto.randomUUID();
    expect((await award('a', { eventName: 'first-win', eventPoints: 50 }, key)).status).toBe(200);
    const resend = await award('a', { eventName: 'first-win', eventPoints: 50 }, key);
    expect(resend.status).toBe(200);
    expect(resend.headers.get('idempotent-replayed')).toBe('true');
  });

  it('cooldown: the same event again too soon is refused 422 cooldown, per quest', async () => {
    const { award } = setup();
    expect((await award('a', { eventName: 'jump', eventPoints: 1 })).status).toBe(200);
    const soon = await award('a', { eventName: 'jump', eventPoints: 1 });
    expect(soon.status).toBe(422);
    expect(soon.json.code).toBe('cooldown');
    expect(soon.json.message).toContain('events.jump.cooldownSeconds 60 s');
    expect((await award('a', { eventName: 'jump', eventPoints: 1 }, undefined, 'q2')).status).toBe(200);
    expect((await award('b', { eventName: 'jump', eventPoints: 1 })).status).toBe(200);
  });

  it('campaign: awards before startsAt or from endsAt on are refused 422 campaign', async () => {
    const { award, seen } = setup();
    const ended = await award('a', { eventName: 'coin', eventPoints: 1 }, undefined, 'winter');
    expect(ended.status).toBe(422);
    expect(ended.json.code).toBe('campaign');
    expect(ended.json.message).toContain('campaigns.winter ended at 2021-01-01T00:00:00Z');
    const early = await award('a', { eventName: 'coin', eventPoints: 1 }, undefined, 'later');
    expect(early.json.code).toBe('campaign');
    expect(early.json.message).toContain('starts at');
    expect(seen).toHaveLength(0);
  });

  it('bans: the policy list and runtime bans refuse 403 banned; unban lets the player through', async () => {
    const { award, economyStore } = setup();
    const banned = await award('cheater', { eventName: 'coin', eventPoints: 1 });
    expect(banned.status).toBe(403);
    expect(banned.json.code).toBe('banned');
    await economyStore.bans.ban('a', 'farming');
    expect((await award('a', { eventName: 'coin', eventPoints: 1 })).json.code).toBe('banned');
    expect(await economyStore.bans.list()).toEqual([{ player: 'a', at: expect.any(Number), reason: 'farming' }]);
    await economyStore.bans.unban('a');
    expect((await award('a', { eventName: 'coin', eventPoints: 1 })).status).toBe(200);
  });

  it('a batch: each rejected result carries its code', async () => {
    const { call } = setup();
    const awards = [10, 10, 10].map((eventPoints) => ({
      questId: 'q',
      serviceUserId: 'a',
      eventName: 'coin',
      eventPoints,
      idempotencyKey: crypto.randomUUID(),
    }));
    awards.push({ questId: 'q', serviceUserId: 'a', eventName: 'first-win', eventPoints: 50, idempotencyKey: crypto.randomUUID() });
    awards.push({ questId: 'q', serviceUserId: 'a', eventName: 'first-win', eventPoints: 50, idempotencyKey: crypto.randomUUID() });
    const answer = await call('POST', '/batch/points', { token: await token({ sub: 'a' }), body: { awards } });
    expect(answer.json.results.map((r: { outcome: string; code?: string }) => r.code ?? r.outcome)).toEqual(['ok', 'ok', 'budget', 'ok', 'once']);
  });

  it('admins are exempt (like the per-player limit)', async () => {
    const { call } = setup();
    const admin = await token({ sub: 'ops', role: 'admin' });
    for (let i = 0; i < 2; i++) {
      const answer = await call('POST', '/group-quests/q/points', {
        token: admin,
        body: { serviceUserId: 'a', eventName: 'first-win', eventPoints: 50 },
      });
      expect(answer.status).toBe(200);
    }
  });

  it('validate(): a refusal is final (422 policy); a throw or no answer by the deadline is retry (503), never sent', async () => {
    let mode: 'ok' | 'refuse' | 'throw' | 'hang' = 'refuse';
    const { award, seen } = setup({
      deadlineMs: 300,
      validate: (award) => {
        if (mode === 'refuse') return { refuse: `no level ${award.onceKey}` };
        if (mode === 'throw') throw new Error('game server down');
        if (mode === 'hang') return new Promise(() => {});
        return undefined;
      },
    });
    const refused = await award('a', { eventName: 'coin', eventPoints: 1, onceKey: '9' });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ code: 'policy', message: "refused by the operator's validate(): no level 9" });
    mode = 'throw';
    expect((await award('a', { eventName: 'coin', eventPoints: 1 })).status).toBe(503);
    mode = 'hang';
    expect((await award('a', { eventName: 'coin', eventPoints: 1 })).status).toBe(503);
    expect(seen).toHaveLength(0);
    mode = 'ok';
    expect((await award('a', { eventName: 'coin', eventPoints: 1 })).status).toBe(200);
  });
});
