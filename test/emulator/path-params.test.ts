// Path parameters with spaces, slashes and unicode, percent-encoded, over real HTTP (raw fetch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY } from '../helpers/fixtures.js';

let server: RunningEmulator;
beforeAll(async () => {
  server = await startEmulator({ port: 0, apiKeys: [API_KEY] });
});
afterAll(() => server.close());

const json = { API_KEY, 'content-type': 'application/json' };

describe('path parameters', () => {
  it.each([
    ['a space', 'summer quest', 'player one'],
    ['a slash', 'season/1', 'team/alpha'],
    ['a traversal attempt', '../users/identify', '../../x'],
    ['unicode', 'quête-été', '玩家🎮'],
    ['percent and plus signs', '100%+fun', 'a+b%20c'],
    ['a question mark and a hash', 'q?x=1', 'u#frag'],
  ])('%s: one segment each, decoded exactly', async (_label, questId, serviceUserId) => {
    const award = await fetch(`${server.url}${paths.points(questId)}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ serviceUserId, eventPoints: 2 }),
    });
    expect(award.status).toBe(200);
    const points = await (await fetch(`${server.url}${paths.pointsOf(questId, serviceUserId)}`, { headers: { API_KEY } })).json();
    expect(points.data.totalPoints).toBe(2);
    const enrolled = await (await fetch(`${server.url}${paths.enrolledUsers(questId)}`, { headers: { API_KEY } })).json();
    expect(enrolled.data).toEqual([{ serviceUserId, email: null }]);
    const state = server.exportState();
    expect(state.enrollments?.at(-1)).toMatchObject({ questId, serviceUserId });
  });
  it('a raw %2F stays inside its segment', async () => {
    await fetch(`${server.url}/group-quests/x%2Fy/points`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ serviceUserId: 'u', eventPoints: 1 }),
    });
    const check = await fetch(`${server.url}/group-quests/x%2Fy/enrolled-users/u`, { headers: { API_KEY } });
    expect(await check.json()).toEqual({ success: true, data: { serviceUserId: 'u', enrolled: true, currentPoints: 1 } });
    expect(server.exportState().enrollments?.some((e) => e.questId === 'x/y')).toBe(true);
  });
  it('an unencoded slash is another route -> 404', async () => {
    const response = await fetch(`${server.url}/group-quests/x/y/points`, { method: 'POST', headers: json, body: '{}' });
    expect(response.status).toBe(404);
  });
  it('an encoded control character in a path parameter -> 400', async () => {
    const response = await fetch(`${server.url}/group-quests/bad%00id/points/u`, { headers: { API_KEY } });
    expect(response.status).toBe(400);
    expect((await response.json()).message).toBe('questId must not contain control characters');
  });
  it('a 129-character encoded id -> 400', async () => {
    const response = await fetch(`${server.url}${paths.pointsOf('q', 'é'.repeat(129))}`, { headers: { API_KEY } });
    expect((await response.json()).message).toBe('serviceUserId must be at most 128 characters');
  });
});
