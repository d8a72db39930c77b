// @vitest-environment happy-dom
// The example behind docs/leaderboard.md's "Show a top 10 and my rank", against the built package (npm run build).
import 'fake-indexeddb/auto';
import { createQuestPoints, type QuestPointsOptions } from 'quest-points';
import { afterEach, expect, it } from 'vitest';
import { showTopTen } from '../../examples/leaderboard/top-ten.js';
import { fakeRelay, json, jwt, uniqueName, until } from './fake-relay.js';

const closing: Array<() => Promise<void>> = [];
afterEach(() => Promise.all(closing.splice(0).map((close) => close())));

it("the docs' top 10 shows the ladder, the player's row marked, and their pending points beside their rank", async () => {
  const relay = fakeRelay((req) => {
    if (req.path.startsWith('/api/group-quests/quest-1/leaderboard?top=10&around=2'))
      return json(
        200,
        {
          success: true,
          data: {
            top: [
              { rank: 1, name: 'Ada', points: 50 },
              { rank: 2, name: 'Me', points: 10, you: true },
            ],
            you: { rank: 2, points: 10 },
            around: [],
            group: { totalPoints: 60, players: 2 },
          },
        },
        { etag: '"a"' },
      );
    if (req.method === 'GET') return json(200, { success: true, data: { totalPoints: 10, history: [] } });
    return json(503, { success: false, message: 'down' });
  });
  const options: QuestPointsOptions = {
    relayUrl: '/api',
    getToken: () => jwt('player-1', Date.now() / 1000 + 3600),
    questId: 'quest-1',
    serviceUserId: 'player-1',
    storageName: uniqueName(),
    fetch: relay.fetch,
  };
  const qp = createQuestPoints(options);
  closing.push(() => qp.close());
  const list = document.createElement('ol');
  const me = document.createElement('p');
  const stop = await showTopTen(qp, options, list, me);
  closing.push(async () => stop());
  await until(() => list.children.length === 2);
  expect(list.children[1]?.textContent).toBe('#2 Me · 10');
  expect(list.children[1]?.getAttribute('aria-current')).toBe('true');
  qp.award({ eventPoints: 15 });
  await until(() => me.textContent === '#2 · 10 pts · +15 pending');
});
