// A game's economy rules in its relay: stop farming (budgets, cooldowns, bans), one-time achievements, a campaign
// window, and a server-authoritative check. docs/economy.md shows these regions; test/relay/economy-docs.test.ts
// runs them against the emulator.
import { createMemoryEconomyStore, createRelay, type EconomyStore, type RelayPolicy } from 'quest-points/relay';

// #region stop-farming
const antiFarming: RelayPolicy = {
  events: {
    // A coin is worth at most 10 points, and one player gets at most one coin award every 2 seconds.
    coin: { maxPoints: 10, cooldownSeconds: 2 },
  },
  budgets: [
    // At most 1,000 coin points per player per calendar day in Paris (midnight to midnight, DST included).
    { points: 1000, window: 'day', timeZone: 'Europe/Paris', event: 'coin', name: 'daily-coins' },
    // And at most 300 points of anything in any rolling hour.
    { points: 300, rollingSeconds: 3600 },
  ],
  // Token subjects refused outright (403 banned); ban others at runtime through the admin API.
  bans: ['bot-4711'],
};
// #endregion stop-farming

// #region once
const achievements: RelayPolicy['events'] = {
  // Counts once per player and quest: a second award is refused (422 once), even from another device.
  'first-win': { points: 50, once: true },
  // Once per player, quest and onceKey: the game sends award({ eventName: 'level-complete', onceKey: 'level-3' }).
  'level-complete': { points: 20, once: true },
};
// #endregion once

// #region campaigns
const campaigns: RelayPolicy['campaigns'] = {
  // Awards for quest "summer" are accepted from June 1st (inclusive) to September 1st (exclusive), UTC.
  summer: { startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-09-01T00:00:00Z' },
};
// #endregion campaigns

/** The whole policy: the three parts above. */
export const policy: RelayPolicy = { ...antiFarming, events: { ...antiFarming.events, ...achievements }, campaigns };

/** What the relay needs from the operator's own setup. */
export interface GameRelaySetup {
  upstreamUrl: string;
  apiKey: string;
  relaySecret: string;
  keySecret: string;
  /** The game server's own record: did this player really finish this level? */
  finishedLevel: (player: string, level: string, signal: AbortSignal) => Promise<boolean>;
  /** Default memory (one instance); several instances share createRedisCounterStore(...).economy. */
  economyStore?: EconomyStore;
}

// #region validate
export function createGameRelay(setup: GameRelaySetup) {
  return createRelay({
    upstream: { url: setup.upstreamUrl, apiKey: setup.apiKey },
    secret: setup.relaySecret,
    keySecret: setup.keySecret,
    policy,
    economyStore: setup.economyStore ?? createMemoryEconomyStore(),
    // Asked before the award is counted or sent. Throwing, or no answer by the request's deadline: the award is
    // answered retry (503) and the SDK sends it again later; it is never accepted unchecked.
    validate: async (award, { player, signal }) => {
      if (award.eventName !== 'level-complete') return undefined;
      const finished = await setup.finishedLevel(player, award.onceKey ?? '', signal);
      return finished ? undefined : { refuse: `level ${award.onceKey} not finished on the game server` };
    },
  });
}
// #endregion validate
