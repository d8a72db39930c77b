// The economy benches' two policies: figure 3's (no economy rule) and the same with every rule on, set so that every
// award passes each rule (budgets far above the load, a 1 ms cooldown, a fresh onceKey per award, a campaign around
// now): each award is checked and reserved, never refused.
import type { RelayPolicy } from '../src/relay/index.js';
import { QUEST } from './lib/relay-requests.js';

export const OFF: RelayPolicy = {
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  rateLimits: { perPlayer: { limit: 1_000_000_000, windowSeconds: 3600 }, perIp: { limit: 1_000_000_000, windowSeconds: 3600 } },
};
export const ON: RelayPolicy = {
  ...OFF,
  events: { Bench: { maxPoints: 100, once: true, cooldownSeconds: 0.001 } },
  budgets: [
    { points: 1e12, window: 'day', timeZone: 'Europe/Paris', event: 'Bench' },
    { points: 1e12, rollingSeconds: 3600, quest: QUEST },
  ],
  campaigns: { [QUEST]: { startsAt: '2020-01-01T00:00:00Z', endsAt: '2100-01-01T00:00:00Z' } },
  bans: ['someone-else'],
};
