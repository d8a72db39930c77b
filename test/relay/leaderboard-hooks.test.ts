// The leaderboard in createRelay (in-process, in front of the emulator): off by default; on, it needs the ledger; the
// operator's name hook names players; an acknowledgement the ledger records twice (no idempotency record: the
// service's own idempotency answers the resend) moves the board once.
import { describe, expect, it } from 'vitest';
import { createMemoryLeaderboardStore, createMemoryLedgerStore, createRelay } from '../../src/relay/index.js';
import { KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { signPlayerToken } from '../../src/relay/index.js';
import { emulatedRelay, uuid } from './helpers.js';

const token = (sub: string) => signPlayerToken({ sub }, { secret: SECRET, ttl: '5m' });

describe('the leaderboard in createRelay', () => {
  it('is off by default (404 naming the option), and refuses to start without the ledger', async () => {
    const { call } = emulatedRelay();
    const off = await call('GET', '/group-quests/q/leaderboard', { token: await token('ann') });
    expect([off.status, off.json.code]).toEqual([404, 'route']);
    expect(off.json.message).toMatch(/RelayOptions leaderboard/);
    expect(() =>
      createRelay({
        secret: SECRET,
        keySecret: KEY_SECRET,
        upstream: { url: 'http://service.test', apiKey: 'k' },
        leaderboard: { store: createMemoryLeaderboardStore() },
      }),
    ).toThrow(/ledger/);
  });

  it("names players with the operator's hook, and counts an acknowledgement recorded twice once", async () => {
    const store = createMemoryLeaderboardStore();
    const { call } = emulatedRelay({
      idempotency: false,
      ledger: { store: createMemoryLedgerStore() },
      leaderboard: { store, name: (player) => (player === 'ann' ? 'Ann the Brave' : undefined) },
    });
    const key = uuid();
    const send = async (player: string, points: number, idempotencyKey = uuid()) =>
      (
        await call('POST', '/group-quests/q/points', {
          token: await token(player),
          headers: { IDEMPOTENCY_KEY: idempotencyKey },
          body: { serviceUserId: player, eventPoints: points },
        })
      ).status;
    expect(await send('ann', 7, key)).toBe(200);
    // No record on the relay: sent again, the service answers from its own idempotency, the ledger says acknowledged.
    expect(await send('ann', 7, key)).toBe(200);
    expect(await send('bob', 3)).toBe(200);
    await expect.poll(async () => (await store.group('q')).players).toBe(2);
    const answer = await call('GET', '/group-quests/q/leaderboard', { token: await token('bob') });
    expect(answer.json.data.top).toEqual([
      { rank: 1, name: 'Ann the Brave', points: 7 },
      { rank: 2, name: expect.stringMatching(/^Player [0-9a-f]{6}$/), points: 3, you: true },
    ]);
    expect(answer.json.data.group).toEqual({ totalPoints: 10, players: 2 });
  });
});
