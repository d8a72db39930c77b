// The economy rules on Redis (one server: redis.test.ts; a 3-master Cluster: redis-cluster.test.ts), over real
// sockets: two relays, one player, the same instant — a budget is never exceeded by one point and a once-only
// achievement applies once under 50 concurrent attempts; a single award is one script with the rules on (as off); a
// final refusal of the service releases the reservation; a runtime ban holds on the other relay at once.
import { describe, expect, it } from 'vitest';
import type { RelayPolicy } from '../../src/relay/index.js';
import { API_KEY, token } from '../helpers/fixtures.js';
import { type caller, uuid } from './helpers.js';
import { commandCalls, delta, readyStore, relayFactory, type RedisUnderTest } from './redis-suite.js';

export const ECONOMY_POLICY: RelayPolicy = {
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  events: { coin: { maxPoints: 10 }, 'first-win': { points: 50, once: true }, jump: { maxPoints: 5, cooldownSeconds: 60 } },
  budgets: [
    { points: 100, window: 'day', timeZone: 'Europe/Paris', event: 'coin' },
    { points: 30, rollingSeconds: 60, event: 'gem' },
  ],
  rateLimits: { perPlayer: { limit: 10_000, windowSeconds: 60 } },
};

/** The service as the tests see it: what it applied (points per player), and a status to answer with. */
export function applyingUpstream() {
  const upstream = {
    applied: [] as { player: string; eventName?: string; points: number }[],
    status: 200,
    url: 'http://service.test',
    apiKey: API_KEY,
    retries: 0,
    fetch: async (request: Request) => {
      if (request.method !== 'POST') return Response.json({ success: true });
      const body = (await request.json()) as { serviceUserId: string; eventName?: string; eventPoints: number; onceKey?: unknown };
      if (body.onceKey !== undefined) throw new Error('onceKey was forwarded to the service');
      if (upstream.status >= 300) return Response.json({ success: false, message: 'refused' }, { status: upstream.status });
      upstream.applied.push({ player: body.serviceUserId, eventName: body.eventName, points: body.eventPoints });
      return Response.json({ success: true });
    },
  };
  return upstream;
}

export function economyRedisSuite(target: () => RedisUnderTest) {
  const relay = relayFactory(target);
  const two = async (upstream: ReturnType<typeof applyingUpstream>) =>
    Promise.all([relay({ upstream, policy: ECONOMY_POLICY }), relay({ upstream, policy: ECONOMY_POLICY })]);
  const award = (call: ReturnType<typeof caller>, jwt: string, sub: string, body: Record<string, unknown>, key = uuid()) =>
    call('POST', '/group-quests/q1/points', { token: jwt, headers: { IDEMPOTENCY_KEY: key }, body: { serviceUserId: sub, ...body } });

  describe('economy rules on Redis: two relays, one player, the same instant', () => {
    it('a budget of 100 is never exceeded by one point: 60 concurrent awards of 7 across both relays', async () => {
      const upstream = applyingUpstream();
      const [a, b] = await two(upstream);
      const sub = `farmer-${uuid()}`;
      const jwt = await token({ sub });
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => award(i % 2 ? a.call : b.call, jwt, sub, { eventName: 'coin', eventPoints: 7 })),
      );
      const applied = upstream.applied.reduce((sum, one) => sum + one.points, 0);
      // 14 awards of 7 = 98 fit; the 15th would make 105.
      expect(applied).toBe(98);
      expect(answers.filter((r) => r.status === 200)).toHaveLength(14);
      const refused = answers.filter((r) => r.status === 422);
      expect(refused).toHaveLength(46);
      for (const r of refused) expect(r.json.code).toBe('budget');
      // A smaller award still fits the 2 points left.
      expect((await award(a.call, jwt, sub, { eventName: 'coin', eventPoints: 2 })).status).toBe(200);
      expect((await award(b.call, jwt, sub, { eventName: 'coin', eventPoints: 1 })).json.code).toBe('budget');
    });

    it('a once-only achievement applies once under 50 concurrent attempts (different keys, both relays)', async () => {
      const upstream = applyingUpstream();
      const [a, b] = await two(upstream);
      const sub = `achiever-${uuid()}`;
      const jwt = await token({ sub });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          award(i % 2 ? a.call : b.call, jwt, sub, { eventName: 'first-win', eventPoints: 50, onceKey: 'level-1' }),
        ),
      );
      expect(upstream.applied).toHaveLength(1);
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(answers.filter((r) => r.json?.code === 'once')).toHaveLength(49);
    });

    it('a rolling window counts the last N seconds; resends of one key count once', async () => {
      const upstream = applyingUpstream();
      const [a, b] = await two(upstream);
      const sub = `roller-${uuid()}`;
      const jwt = await token({ sub });
      const key = uuid();
      // The same award sent 6 times through both relays with idempotency off at the service side: counted once.
      const resends = await Promise.all(
        Array.from({ length: 6 }, (_, i) => award(i % 2 ? a.call : b.call, jwt, sub, { eventName: 'gem', eventPoints: 10 }, key)),
      );
      expect(resends.every((r) => r.status === 200)).toBe(true);
      expect((await award(a.call, jwt, sub, { eventName: 'gem', eventPoints: 10 })).status).toBe(200);
      expect((await award(b.call, jwt, sub, { eventName: 'gem', eventPoints: 10 })).status).toBe(200);
      const over = await award(a.call, jwt, sub, { eventName: 'gem', eventPoints: 10 });
      expect(over.json.code).toBe('budget');
      expect(over.json.message).toContain('budget budgets[1] (30 points in any 60 s, event "gem")');
    });

    it("the service's final refusal releases the reservation (once and cooldown too); a 503 keeps it", async () => {
      const upstream = applyingUpstream();
      const [a, b] = await two(upstream);
      const sub = `refused-${uuid()}`;
      const jwt = await token({ sub });
      upstream.status = 422;
      expect((await award(a.call, jwt, sub, { eventName: 'first-win', eventPoints: 50 })).status).toBe(422);
      expect((await award(b.call, jwt, sub, { eventName: 'jump', eventPoints: 1 })).status).toBe(422);
      for (let i = 0; i < 3; i++) expect((await award(a.call, jwt, sub, { eventName: 'coin', eventPoints: 10 })).status).toBe(422);
      upstream.status = 200;
      expect((await award(b.call, jwt, sub, { eventName: 'first-win', eventPoints: 50 })).status).toBe(200);
      expect((await award(a.call, jwt, sub, { eventName: 'jump', eventPoints: 1 })).status).toBe(200);
      upstream.status = 503;
      const key = uuid();
      expect((await award(a.call, jwt, sub, { eventName: 'coin', eventPoints: 10 }, key)).status).toBe(503);
      upstream.status = 200;
      // The resend reuses the reservation by key: 10 + 90 fit exactly, one point more does not.
      expect((await award(b.call, jwt, sub, { eventName: 'coin', eventPoints: 10 }, key)).status).toBe(200);
      for (let i = 0; i < 9; i++) expect((await award(i % 2 ? a.call : b.call, jwt, sub, { eventName: 'coin', eventPoints: 10 })).status).toBe(200);
      expect((await award(a.call, jwt, sub, { eventName: 'coin', eventPoints: 1 })).json.code).toBe('budget');
    });

    it('a runtime ban in Redis refuses the player on the other relay at once, and lists it', async () => {
      const upstream = applyingUpstream();
      const [a, b] = await two(upstream);
      const store = await readyStore(target().url);
      try {
        const sub = `banned-${uuid()}`;
        const jwt = await token({ sub });
        expect((await award(a.call, jwt, sub, { eventName: 'coin', eventPoints: 1 })).status).toBe(200);
        await store.economy.bans.ban(sub, 'bot');
        for (const r of [await award(a.call, jwt, sub, { eventName: 'coin', eventPoints: 1 }), await award(b.call, jwt, sub, { eventPoints: 1 })]) {
          expect([r.status, r.json.code]).toEqual([403, 'banned']);
        }
        expect(await store.economy.bans.list()).toContainEqual({ player: sub, at: expect.any(Number), reason: 'bot' });
        await store.economy.bans.unban(sub);
        expect((await award(b.call, jwt, sub, { eventName: 'coin', eventPoints: 1 })).status).toBe(200);
        expect((await store.economy.bans.list()).map((entry) => entry.player)).not.toContain(sub);
      } finally {
        await store.close!();
      }
    });

    it('a single award is one script with every rule on, as with none (no round trip more)', async () => {
      const upstream = applyingUpstream();
      const on = await relay({ upstream, policy: ECONOMY_POLICY });
      const off = await relay({ upstream, policy: { allowUnknownEvents: true, maxPointsPerAward: 100, rateLimits: ECONOMY_POLICY.rateLimits } });
      const ports = target().ports;
      for (const [name, { call }] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const sub = `trips-${name}-${uuid()}`;
        const jwt = await token({ sub });
        // The script loaded on the player's node first (a node that never ran it answers NOSCRIPT once).
        expect((await award(call, jwt, sub, { eventName: 'coin', eventPoints: 1 })).status).toBe(200);
        const before = await commandCalls(ports);
        expect((await award(call, jwt, sub, { eventName: 'coin', eventPoints: 1 })).status).toBe(200);
        const calls = delta(before, await commandCalls(ports));
        // One EVALSHA (hit, record lookup, economy), then the record's SET; inside the script: INCRBY, SET... not round trips.
        expect(calls.evalsha, `${name}: ${JSON.stringify(calls)}`).toBe(1);
        expect(calls.mget ?? 0).toBe(0);
        expect(calls.eval ?? 0).toBe(0);
      }
    });
  });
}
