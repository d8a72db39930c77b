import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DEFAULT_POLICY,
  resolvePolicy,
  type EventRule,
  type PlayerClaims,
  type PlayerClaimsSchema,
  type RateLimitRule,
  type RateLimits,
  type RelayPolicy,
  type RelayPolicySchema,
  type ResolvedPolicy,
  type VerifiedClaims,
} from '../../src/relay/index.js';
import {
  checkPolicyPoints,
  checkPolicyQuest,
  type EventRuleEntriesSchema,
  type EventRuleSchema,
  type RateLimitSchema,
  type RateLimitsSchema,
} from '../../src/relay/policy.js';
import { testTempDir } from '../helpers/temp.js';

const policy = resolvePolicy({
  quests: ['q1'],
  maxPointsPerAward: 100,
  events: {
    level_complete: { points: 50 },
    coin: { maxPoints: 10 },
    penalty: { maxPoints: 20, allowNegative: true },
  },
});
const points = (eventPoints: number, eventName?: string) => checkPolicyPoints(policy, { eventPoints, eventName });

describe('award policy', () => {
  it('accepts awards within the rules', () => {
    expect(points(50, 'level_complete')).toBeNull();
    expect(points(7.5, 'coin')).toBeNull();
    expect(points(-20, 'penalty')).toBeNull();
    expect(checkPolicyQuest(policy, 'q1')).toBeNull();
  });

  it('refuses each rule with 422 and a message naming it', () => {
    expect(points(49, 'level_complete')).toEqual({
      status: 422,
      message: 'eventPoints 49 does not match policy events.level_complete.points 50',
      code: 'policy',
    });
    expect(points(11, 'coin')).toEqual({ status: 422, message: 'eventPoints 11 exceeds policy events.coin.maxPoints 10', code: 'policy' });
    expect(points(-21, 'penalty')).toEqual({ status: 422, message: 'eventPoints -21 exceeds policy events.penalty.maxPoints 20', code: 'policy' });
    expect(points(-1, 'coin')?.message).toBe('eventPoints -1 is negative and policy events.coin.allowNegative does not allow negatives');
    expect(points(0, 'coin')?.message).toBe('eventPoints 0 is refused: an award must carry points');
    // Amounts the service would keep as 0 (6 decimal places) are zero too, negative ones included.
    expect(points(5e-324, 'coin')?.message).toBe("eventPoints 5e-324 rounds to 0 at the service's 6 decimal places: an award must carry points");
    expect(points(-4e-7, 'penalty')?.message).toBe("eventPoints -4e-7 rounds to 0 at the service's 6 decimal places: an award must carry points");
    expect(points(5e-7, 'coin')).toBeNull();
    expect(points(Number.NaN, 'coin')?.message).toBe('eventPoints must be a finite number');
    expect(points(Number.POSITIVE_INFINITY, 'coin')?.message).toBe('eventPoints must be a finite number');
    expect(points(5, 'jump')).toEqual({
      status: 422,
      message: 'eventName "jump" is not in policy events (policy allowUnknownEvents is false)',
      code: 'policy',
    });
    // No eventName is the service's default event, which this policy does not list.
    expect(points(5)?.message).toContain('eventName "DefaultPointsEvent" is not in policy events');
    expect(checkPolicyQuest(policy, 'q2')).toEqual({ status: 403, message: 'questId "q2" is not in policy quests', code: 'policy' });
  });

  it('applies the per-award cap to unknown events when they are allowed', () => {
    const open = resolvePolicy({ allowUnknownEvents: true, maxPointsPerAward: 100 });
    expect(checkPolicyPoints(open, { eventPoints: 100, eventName: 'x' })).toBeNull();
    expect(checkPolicyPoints(open, { eventPoints: 500, eventName: 'x' })?.message).toBe('eventPoints 500 exceeds policy maxPointsPerAward 100');
    expect(checkPolicyPoints(open, { eventPoints: -5, eventName: 'x' })?.message).toBe(
      'eventPoints -5 is negative and an unknown event does not allow negatives',
    );
  });

  it('does not treat inherited object keys as event rules', () => {
    expect(checkPolicyPoints(policy, { eventPoints: 1, eventName: 'constructor' })?.message).toContain('is not in policy events');
    expect(checkPolicyPoints(policy, { eventPoints: 1, eventName: '__proto__' })?.message).toContain('is not in policy events');
  });

  it('the default policy is closed and bounded', () => {
    const safe = resolvePolicy(undefined);
    expect(safe).toEqual(resolvePolicy(DEFAULT_POLICY));
    expect(checkPolicyPoints(safe, { eventPoints: 100 })).toBeNull();
    expect(checkPolicyPoints(safe, { eventPoints: 101 })?.status).toBe(422);
    expect(checkPolicyPoints(safe, { eventPoints: 1, eventName: 'anything' })?.status).toBe(422);
    expect(checkPolicyPoints(safe, { eventPoints: -1 })?.status).toBe(422);
    expect(safe.rateLimits.perPlayer).toEqual({ limit: 200, windowSeconds: 60 });
  });

  it('refuses invalid policies naming the field, typos included', () => {
    expect(() => resolvePolicy({ maxPointsPerAward: -1 })).toThrow('policy: maxPointsPerAward must be greater than 0');
    expect(() => resolvePolicy({ events: { a: { points: 1, maxPoints: 2 } } })).toThrow('policy: events.a must set points or maxPoints, not both');
    expect(() => resolvePolicy({ allowUnknownEvent: true } as never)).toThrow(/allowUnknownEvent/);
    expect(() => resolvePolicy({ rateLimits: { perIp: { limit: 0, windowSeconds: 1 } } })).toThrow(
      'policy: rateLimits.perIp.limit must be at least 1',
    );
  });

  it('reads a JSON file, and names the file in errors', () => {
    const dir = testTempDir('qp-policy');
    const good = join(dir, 'policy.json');
    writeFileSync(good, JSON.stringify({ quests: ['q9'], events: { coin: { maxPoints: 3 } } }));
    expect(resolvePolicy(good).quests).toEqual(['q9']);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    expect(() => resolvePolicy(bad)).toThrow(`policy file ${bad}: is not valid JSON`);
    expect(() => resolvePolicy(join(dir, 'missing.json'))).toThrow(/cannot be read \(ENOENT\)/);
    writeFileSync(bad, JSON.stringify({ events: { coin: { maxPoints: 'ten' } } }));
    expect(() => resolvePolicy(bad)).toThrow(`policy file ${bad}: events.coin.maxPoints must be a number`);
  });
});

// The relay's documented interfaces (one declaration per key for TypeDoc) must stay valibot's inferred types exactly;
// checked by the type checker (npm run typecheck), not at run time.
describe("the policy and claims types are the schemas' inferred types", () => {
  it('for the policy and its rules', () => {
    expectTypeOf<RelayPolicy>().toEqualTypeOf<v.InferInput<typeof RelayPolicySchema>>();
    expectTypeOf<ResolvedPolicy>().toEqualTypeOf<v.InferOutput<typeof RelayPolicySchema>>();
    expectTypeOf<EventRule>().toEqualTypeOf<v.InferOutput<typeof EventRuleEntriesSchema>>();
    expectTypeOf<EventRule>().toEqualTypeOf<v.InferOutput<typeof EventRuleSchema>>();
    expectTypeOf<RateLimitRule>().toEqualTypeOf<v.InferOutput<typeof RateLimitSchema>>();
    expectTypeOf<RateLimits>().toEqualTypeOf<v.InferOutput<typeof RateLimitsSchema>>();
    // and input and output differ where valibot's do, so the checks above can fail
    expectTypeOf<RelayPolicy>().not.toEqualTypeOf<ResolvedPolicy>();
  });
  it('for the claims', () => {
    expectTypeOf<PlayerClaims>().toEqualTypeOf<v.InferInput<typeof PlayerClaimsSchema>>();
    expectTypeOf<VerifiedClaims>().toEqualTypeOf<v.InferOutput<typeof PlayerClaimsSchema>>();
    expectTypeOf<PlayerClaims>().not.toEqualTypeOf<VerifiedClaims>();
  });
});
