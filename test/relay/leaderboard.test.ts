// The leaderboard over real sockets: two relays on one Redis in front of the emulator. Awards acknowledged through
// either relay move one shared board; a replay (answered from the idempotency record) and a refusal do not; ranks,
// the players around one and the group are right with ties; ETag and 304; a player reads names, never another
// player's serviceUserId; bounds answer 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { caller, uuid } from './helpers.js';

let redis: TestRedis;
let stack: ServedStack;
let otherUrl: string;
beforeAll(async () => {
  redis = await startRedis();
  stack = await startStack({ relayOptions: { redis: redis.url } });
  otherUrl = (await stack.addRelay()).url;
}, 30_000);
afterAll(async () => {
  await stack?.close();
  await redis?.stop();
});

const relays = () => [caller(stack.relay.url), caller(otherUrl)] as const;

async function send(via: 0 | 1, quest: string, player: string, points: number, key = uuid()) {
  const answer = await relays()[via]('POST', `/group-quests/${quest}/points`, {
    token: await stack.token(player),
    headers: { IDEMPOTENCY_KEY: key },
    body: { serviceUserId: player, eventPoints: points, eventName: 'coin' },
  });
  return answer;
}

async function board(via: 0 | 1, quest: string, as: string, query = '', headers: Record<string, string> = {}, role?: 'admin') {
  return relays()[via]('GET', `/group-quests/${quest}/leaderboard${query}`, {
    token: await stack.token(as, role ? { role } : {}),
    headers,
  });
}

describe('the relay leaderboard', () => {
  it('is moved once by each acknowledged award through either relay; never by a replay or a refusal', async () => {
    const quest = `lb-${uuid().slice(0, 8)}`;
    const key = uuid();
    expect((await send(0, quest, 'ann', 40, key)).status).toBe(200);
    expect((await send(1, quest, 'bob', 30)).status).toBe(200);
    expect((await send(1, quest, 'ann', 5)).status).toBe(200);
    // The same award again, through the other relay: answered from the shared idempotency record.
    const replay = await send(1, quest, 'ann', 40, key);
    expect(replay.status).toBe(200);
    // Over OPEN_POLICY's maxPointsPerAward: refused, never on the board.
    expect((await send(0, quest, 'cat', 5000)).status).toBe(422);
    await expect.poll(async () => (await board(0, quest, 'ann')).json?.data.group).toEqual({ totalPoints: 75, players: 2 });
    // A later award proves the feed has caught up past the replay: the board moved by it alone.
    expect((await send(0, quest, 'bob', 1)).status).toBe(200);
    await expect.poll(async () => (await board(1, quest, 'bob')).json?.data.group).toEqual({ totalPoints: 76, players: 2 });
    const seen = await board(1, quest, 'bob');
    expect(seen.json.data.you).toEqual({ rank: 2, points: 31 });
    expect(seen.json.data.top.map((row: { points: number }) => row.points)).toEqual([45, 31]);
  });

  it('ranks ties alike, gives the K around the player, marks their row, and names players without their ids', async () => {
    const quest = `lb-${uuid().slice(0, 8)}`;
    const scores: [string, number][] = [
      ['p-ann@example.com', 50],
      ['p-bob', 40],
      ['p-cat', 40],
      ['p-dan', 40],
      ['p-eve', 30],
      ['p-fay', 20],
    ];
    await Promise.all(scores.map(([player, points], i) => send((i % 2) as 0 | 1, quest, player, points)));
    await expect.poll(async () => (await board(0, quest, 'p-eve')).json?.data.group.players).toBe(6);
    const answer = await board(0, quest, 'p-eve', '?top=3&around=1');
    expect(answer.status).toBe(200);
    const { data } = answer.json;
    expect(data.you).toEqual({ rank: 5, points: 30 });
    expect(data.top.map((row: { rank: number }) => row.rank)).toEqual([1, 2, 2]);
    expect(data.around.map((row: { rank: number; points: number }) => [row.rank, row.points])).toEqual([
      [2, 40],
      [5, 30],
      [6, 20],
    ]);
    expect(data.around[1]).toMatchObject({ you: true });
    expect(data.around.filter((row: { you?: true }) => row.you)).toHaveLength(1);
    expect(data.group).toEqual({ totalPoints: 220, players: 6 });
    for (const row of [...data.top, ...data.around])
      expect(Object.keys(row).sort()).toEqual(row.you ? ['name', 'points', 'rank', 'you'] : ['name', 'points', 'rank']);
    // No id, no e-mail: not in a name, nowhere in the answer; the same stable pseudonym on both relays.
    for (const [player] of scores) expect(answer.text).not.toContain(player);
    expect(data.top[0].name).toMatch(/^Player [0-9a-f]{6}$/);
    expect((await board(1, quest, 'p-eve', '?top=3&around=1')).json.data.top[0].name).toBe(data.top[0].name);
    // A player asking for another's place is refused; an admin may.
    const other = await board(0, quest, 'p-eve', '?player=p-bob');
    expect([other.status, other.json.code]).toEqual([403, 'player']);
    // A token scoped to other quests reads none of this one's board.
    const scoped = await relays()[0]('GET', `/group-quests/${quest}/leaderboard`, { token: await stack.token('p-eve', { quests: ['elsewhere'] }) });
    expect(scoped.status).toBe(403);
    expect(scoped.json.message).toMatch(/not in the token's quests/);
    const admin = await board(0, quest, 'operator-1', '?player=p-fay&around=0', {}, 'admin');
    expect(admin.json.data.you).toEqual({ rank: 6, points: 20 });
    const adminPlain = await board(0, quest, 'operator-1', '', {}, 'admin');
    expect(adminPlain.json.data).toMatchObject({ you: null, around: [] });
  });

  it('answers 304 to its own strong ETag (on either relay), cached privately; a move changes the tag', async () => {
    const quest = `lb-${uuid().slice(0, 8)}`;
    expect((await send(0, quest, 'ann', 10)).status).toBe(200);
    await expect.poll(async () => (await board(0, quest, 'ann')).json?.data.you).toEqual({ rank: 1, points: 10 });
    const first = await board(0, quest, 'ann');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(first.headers.get('cache-control')).toBe('private, max-age=2');
    const again = await board(1, quest, 'ann', '', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // Another player's answer differs (their `you`): another tag.
    expect((await board(0, quest, 'bob')).headers.get('etag')).not.toBe(etag);
    expect((await send(1, quest, 'ann', 1)).status).toBe(200);
    await expect.poll(async () => (await board(0, quest, 'ann', '', { 'if-none-match': etag })).status).toBe(200);
  });

  it('bounds top and around, naming the field (400)', async () => {
    const over = await board(0, 'q', 'ann', '?top=101');
    expect(over.status).toBe(400);
    expect(over.json.message).toMatch(/top.*at most 100/);
    const around = await board(0, 'q', 'ann', '?around=26');
    expect(around.status).toBe(400);
    expect(around.json.message).toMatch(/around.*at most 25/);
    expect((await board(0, 'q', 'ann', '?top=ten')).json.message).toMatch(/top.*whole number/);
    expect((await board(0, 'q', 'ann', '?sort=asc')).status).toBe(400);
    expect((await board(0, 'q', 'ann', '?top=100&around=25')).status).toBe(200);
  });
});
