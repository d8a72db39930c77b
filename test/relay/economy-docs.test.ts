// docs/economy.md's example (examples/relay-economy/rules.ts, through the built package) against the emulator on loopback:
// every rule the page shows refuses what it says, and what it lets through is what the service applied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGameRelay } from '../../examples/relay-economy/rules.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { caller } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: [API_KEY] });
});
afterAll(async () => {
  await emulator?.close();
});

const finished = new Set(['alice:level-1', 'alice:level-2']);
const relay = () =>
  caller(
    createGameRelay({
      upstreamUrl: emulator.url,
      apiKey: API_KEY,
      relaySecret: SECRET,
      keySecret: KEY_SECRET,
      finishedLevel: async (player, level) => finished.has(`${player}:${level}`),
    }).fetch,
  );

const applied = (quest: string, player: string) =>
  fetch(`${emulator.url}/group-quests/${quest}/points/${player}`, { headers: { API_KEY } })
    .then((r) => r.json() as Promise<{ data?: { totalPoints: number } }>)
    .then((body) => body.data?.totalPoints ?? 0);

describe('docs/economy.md example', () => {
  it('cooldown, once with onceKey and validate(), the rolling budget, the campaign window and the ban', async () => {
    const call = relay();
    const jwt = await token({ sub: 'alice' });
    const award = (body: Record<string, unknown>, quest = 'q1') =>
      call('POST', `/group-quests/${quest}/points`, {
        token: jwt,
        headers: { 'Idempotency-Key': crypto.randomUUID() },
        body: { serviceUserId: 'alice', ...body },
      });
    expect((await award({ eventName: 'coin', eventPoints: 10 })).status).toBe(200);
    expect((await award({ eventName: 'coin', eventPoints: 10 })).json.code).toBe('cooldown');
    expect((await award({ eventName: 'first-win', eventPoints: 50 })).status).toBe(200);
    expect((await award({ eventName: 'first-win', eventPoints: 50 })).json.code).toBe('once');
    expect((await award({ eventName: 'level-complete', eventPoints: 20, onceKey: 'level-1' })).status).toBe(200);
    expect((await award({ eventName: 'level-complete', eventPoints: 20, onceKey: 'level-1' })).json.code).toBe('once');
    // validate(): the game server says level 3 is not finished.
    const unfinished = await award({ eventName: 'level-complete', eventPoints: 20, onceKey: 'level-3' });
    expect([unfinished.status, unfinished.json.code]).toEqual([422, 'policy']);
    for (let level = 4; level <= 14; level++) finished.add(`alice:level-${level}`);
    // 10 + 50 + 20 = 80 so far; the rolling hour allows 300: eleven more levels of 20 fit (300), the twelfth does not.
    for (let level = 4; level <= 14; level++) {
      const answer = await award({ eventName: 'level-complete', eventPoints: 20, onceKey: `level-${level}` });
      expect(answer.status, `level-${level}: ${answer.text}`).toBe(200);
    }
    finished.add('alice:level-2');
    const over = await award({ eventName: 'level-complete', eventPoints: 20, onceKey: 'level-2' });
    expect([over.status, over.json.code]).toEqual([422, 'budget']);
    expect(await applied('q1', 'alice')).toBe(300);
    // The summer campaign (2026-06-01 to 2026-09-01) is over or not started, whatever today is outside it.
    const now = Date.now();
    const summer = await award({ eventName: 'coin', eventPoints: 1 }, 'summer');
    if (now < Date.parse('2026-06-01T00:00:00Z') || now >= Date.parse('2026-09-01T00:00:00Z')) expect(summer.json.code).toBe('campaign');
    const bot = await call('POST', '/group-quests/q1/points', {
      token: await token({ sub: 'bot-4711' }),
      body: { serviceUserId: 'bot-4711', eventName: 'coin', eventPoints: 1 },
    });
    expect([bot.status, bot.json.code]).toEqual([403, 'banned']);
  });
});
