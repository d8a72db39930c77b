// Enrolled-users pages: default 100, clamp 250, relative URLs or null, edges.
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/protocol/index.js';
import { emulator } from './helpers.js';

async function withEnrolled(count: number, questId = 'q') {
  const ctx = emulator({ admin: true });
  const enrollments = Array.from({ length: count }, (_, i) => ({ questId, serviceUserId: `u${String(i).padStart(4, '0')}` }));
  const seeded = await ctx.send('POST', '/__emulator/seed', { body: { enrollments } });
  expect(seeded.status).toBe(200);
  return ctx;
}

const ids = (body: { data: { serviceUserId: string }[] }) => body.data.map((u) => u.serviceUserId);

describe('enrolled users: pagination', () => {
  it('default limit is 100; nextPage is the relative URL of the next page', async () => {
    const { send } = await withEnrolled(120);
    const first = await send('GET', paths.enrolledUsers('q'));
    expect(first.body.data).toHaveLength(100);
    expect(first.body.pagination).toEqual({
      limit: 100,
      offset: 0,
      nextPage: '/group-quests/q/enrolled-users?limit=100&offset=100',
      previousPage: null,
    });
    const second = await send('GET', first.body.pagination.nextPage);
    expect(ids(second.body)).toEqual(Array.from({ length: 20 }, (_, i) => `u${String(100 + i).padStart(4, '0')}`));
    expect(second.body.pagination).toEqual({
      limit: 100,
      offset: 100,
      nextPage: null,
      previousPage: '/group-quests/q/enrolled-users?limit=100&offset=0',
    });
  });
  it('a limit over 250 is clamped to 250 and the applied value reported', async () => {
    const { send } = await withEnrolled(300);
    const page = await send('GET', paths.enrolledUsers('q', { limit: 1000 }));
    expect(page.body.data).toHaveLength(250);
    expect(page.body.pagination.limit).toBe(250);
    expect(page.body.pagination.nextPage).toBe('/group-quests/q/enrolled-users?limit=250&offset=250');
  });
  it('exactly 250 is not clamped further; 251 is', async () => {
    const { send } = await withEnrolled(3);
    expect((await send('GET', paths.enrolledUsers('q', { limit: 250 }))).body.pagination.limit).toBe(250);
    expect((await send('GET', paths.enrolledUsers('q', { limit: 251 }))).body.pagination.limit).toBe(250);
  });
  it('offset past the end: empty data, no next page, previous page is the last page with items', async () => {
    const { send } = await withEnrolled(5);
    const page = await send('GET', paths.enrolledUsers('q', { limit: 2, offset: 50 }));
    expect(page.body.data).toEqual([]);
    expect(page.body.pagination).toEqual({ limit: 2, offset: 50, nextPage: null, previousPage: '/group-quests/q/enrolled-users?limit=2&offset=3' });
  });
  it('offset exactly at the end: empty data, no next page', async () => {
    const { send } = await withEnrolled(4);
    const page = await send('GET', paths.enrolledUsers('q', { limit: 2, offset: 4 }));
    expect(page.body.data).toEqual([]);
    expect(page.body.pagination.nextPage).toBeNull();
  });
  it('a page ending exactly at the last item has no next page', async () => {
    const { send } = await withEnrolled(4);
    const page = await send('GET', paths.enrolledUsers('q', { limit: 2, offset: 2 }));
    expect(ids(page.body)).toEqual(['u0002', 'u0003']);
    expect(page.body.pagination.nextPage).toBeNull();
    expect(page.body.pagination.previousPage).toBe('/group-quests/q/enrolled-users?limit=2&offset=0');
  });
  it('an offset that is not a multiple of the limit: previous page starts at 0, never negative', async () => {
    const { send } = await withEnrolled(10);
    const page = await send('GET', paths.enrolledUsers('q', { limit: 4, offset: 1 }));
    expect(ids(page.body)).toEqual(['u0001', 'u0002', 'u0003', 'u0004']);
    expect(page.body.pagination.previousPage).toBe('/group-quests/q/enrolled-users?limit=4&offset=0');
    expect(page.body.pagination.nextPage).toBe('/group-quests/q/enrolled-users?limit=4&offset=5');
  });
  it('following nextPage from the start visits every user once, in enrollment order', async () => {
    const { send } = await withEnrolled(23, 'quest with spaces/and slash');
    const seen: string[] = [];
    let next: string | null = paths.enrolledUsers('quest with spaces/and slash', { limit: 5 });
    while (next) {
      const page = await send('GET', next);
      expect(page.status).toBe(200);
      seen.push(...ids(page.body));
      next = page.body.pagination.nextPage;
    }
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => `u${String(i).padStart(4, '0')}`));
  });
  it('limit=1 pages one by one', async () => {
    const { send } = await withEnrolled(2);
    const page = await send('GET', paths.enrolledUsers('q', { limit: 1 }));
    expect(ids(page.body)).toEqual(['u0000']);
    expect(page.body.pagination.nextPage).toBe('/group-quests/q/enrolled-users?limit=1&offset=1');
  });
});
