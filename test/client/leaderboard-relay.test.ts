// watchLeaderboard against a real relay (over a socket, the leaderboard on, in front of the emulator): an award the
// client sends moves the player's confirmed rank; a second player's award is read on a later conditional read.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createQuestPoints } from '../../src/client/client.js';
import { watchLeaderboard } from '../../src/client/leaderboard.js';
import type { QuestPointsOptions } from '../../src/client/options.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { uniqueName } from './fake-relay.js';

let stack: ServedStack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack?.close());

it("a real relay's board, read live: the player's award moves their rank, another player's shows up", async () => {
  const quest = `lb-sdk-${Date.now().toString(36)}`;
  const client = (player: string): [ReturnType<typeof createQuestPoints>, QuestPointsOptions] => {
    const options: QuestPointsOptions = {
      relayUrl: stack.relay.url,
      getToken: () => stack.token(player),
      questId: quest,
      serviceUserId: player,
      storageName: uniqueName(),
      flushDelayMs: 1,
    };
    return [createQuestPoints(options), options];
  };
  const [ann, annOptions] = client('ann');
  const [bob] = client('bob');
  try {
    const board = watchLeaderboard(ann, annOptions, { top: 5, intervalMs: 50 });
    const stop = board.subscribe(() => {});
    await ann.award({ eventPoints: 40 }).settled;
    await expect.poll(() => board.getSnapshot()?.you, { timeout: 5000 }).toEqual({ rank: 1, points: 40 });
    await bob.award({ eventPoints: 55 }).settled;
    await expect.poll(() => board.getSnapshot()?.you, { timeout: 5000 }).toEqual({ rank: 2, points: 40 });
    const view = board.getSnapshot();
    expect(view?.top.map((row) => [row.points, row.you ?? false])).toEqual([
      [55, false],
      [40, true],
    ]);
    expect(view?.group).toEqual({ totalPoints: 95, players: 2 });
    expect(JSON.stringify(view)).not.toContain('bob');
    stop();
  } finally {
    await ann.close();
    await bob.close();
  }
});
