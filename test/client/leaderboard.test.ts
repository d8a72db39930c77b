// @vitest-environment happy-dom
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { type LeaderboardOptions, type LeaderboardView, watchLeaderboard } from '../../src/client/leaderboard.js';
import type { QuestPointsOptions } from '../../src/client/options.js';
import { createQuestPoints } from '../../src/client/client.js';
import type { QuestPoints } from '../../src/client/client-types.js';
import { fakeRelay, json, jwt, type Seen, testClientOptions, until } from './fake-relay.js';

const open: QuestPoints[] = [];
const closeAll = () => Promise.all(open.splice(0).map((c) => c.close()));
/** A client and a watch through the options object it was made from, as quest-points/leaderboard takes them. */
function client(overrides: Partial<QuestPointsOptions> & { fetch: typeof fetch }) {
  const options = testClientOptions(overrides);
  const qp = createQuestPoints(options);
  open.push(qp);
  return Object.assign(qp, {
    watchLeaderboard: async (questId: string, opts: LeaderboardOptions = {}) => watchLeaderboard(qp, options, { questId, ...opts }),
  });
}
afterEach(closeAll);
afterEach(() => setVisibility('visible'));

const board = (points: number) => ({
  success: true,
  data: {
    top: [
      { rank: 1, name: 'Ada', points: 50 },
      { rank: 2, name: 'You', points, you: true },
    ],
    you: { rank: 2, points },
    around: [{ rank: 2, name: 'You', points, you: true }],
    group: { totalPoints: 50 + points, players: 2 },
  },
});

function setVisibility(state: 'visible' | 'hidden') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

/** A relay stub: the leaderboard with a strong ETag and 304 on If-None-Match; reads of points answered, awards refused (kept queued). */
function relay(state = { points: 10, tag: 'v1' }) {
  const reads: Seen[] = [];
  const stub = fakeRelay((req) => {
    if (req.path.includes('/leaderboard')) {
      reads.push(req);
      if (req.headers['if-none-match'] === `"${state.tag}"`) return new Response(null, { status: 304, headers: { etag: `"${state.tag}"` } });
      return json(200, board(state.points), { etag: `"${state.tag}"` });
    }
    if (req.method === 'GET') return json(200, { success: true, data: { totalPoints: 0, history: [] } });
    return json(503, { success: false, message: 'down' });
  });
  return { ...stub, reads, state };
}

describe('watchLeaderboard', () => {
  it('reads with If-None-Match: a 304 keeps the last view, a new tag brings the new rows', async () => {
    const r = relay();
    const qp = client({ fetch: r.fetch });
    const watch = await qp.watchLeaderboard('quest-1', { top: 5, around: 1, intervalMs: 20 });
    const views: LeaderboardView[] = [];
    const stop = watch.subscribe((v) => views.push(v));
    await until(() => r.reads.length >= 3);
    expect(r.reads[0]?.path).toBe('/api/group-quests/quest-1/leaderboard?top=5&around=1');
    expect(r.reads[0]?.headers['if-none-match']).toBeUndefined();
    expect(r.reads[1]?.headers['if-none-match']).toBe('"v1"');
    expect(r.reads[0]?.headers.authorization).toMatch(/^Bearer /);
    // 304s: the same view object, no new event.
    expect(views.length).toBe(1);
    const first = watch.getSnapshot();
    expect(first?.you).toEqual({ rank: 2, points: 10 });
    r.state.points = 30;
    r.state.tag = 'v2';
    await until(() => watch.getSnapshot()?.you?.points === 30);
    expect(views.length).toBe(2);
    stop();
  });

  it('reads less often while the page is hidden, and at once when it shows again', async () => {
    const r = relay();
    const qp = client({ fetch: r.fetch });
    const watch = await qp.watchLeaderboard('quest-1', { intervalMs: 20, hiddenIntervalMs: 60_000 });
    const stop = watch.subscribe(() => {});
    await until(() => r.reads.length >= 2);
    setVisibility('hidden');
    // The read already scheduled may run; after it, none for a minute.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const hiddenCount = r.reads.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.reads.length).toBeLessThanOrEqual(hiddenCount);
    setVisibility('visible');
    await until(() => r.reads.length > hiddenCount + 2);
    stop();
  });

  it('pauses offline (the view marked stale) and reads again once back online', async () => {
    const r = relay();
    const qp = client({ fetch: r.fetch });
    const watch = await qp.watchLeaderboard('quest-1', { intervalMs: 20 });
    const stop = watch.subscribe(() => {});
    await until(() => r.reads.length >= 1 && watch.getSnapshot() !== null);
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
    window.dispatchEvent(new Event('offline'));
    await until(() => watch.getSnapshot()?.stale === true);
    const offlineCount = r.reads.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(r.reads.length).toBe(offlineCount);
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
    window.dispatchEvent(new Event('online'));
    await until(() => r.reads.length > offlineCount && watch.getSnapshot()?.stale === false);
    stop();
  });

  it('stops reading after the last unsubscribe, and starts again on a new subscribe', async () => {
    const r = relay();
    const qp = client({ fetch: r.fetch });
    const watch = await qp.watchLeaderboard('quest-1', { intervalMs: 20 });
    const a = watch.subscribe(() => {});
    const b = watch.subscribe(() => {});
    await until(() => r.reads.length >= 2);
    a();
    const before = r.reads.length;
    await until(() => r.reads.length > before + 1); // b still subscribed
    b();
    b(); // a second call changes nothing
    await new Promise((resolve) => setTimeout(resolve, 40));
    const stopped = r.reads.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(r.reads.length).toBe(stopped);
    const c = watch.subscribe(() => {});
    await until(() => r.reads.length > stopped);
    c();
  });

  it("shows the player's own queued points apart, never in anyone's points", async () => {
    const r = relay();
    const qp = client({ fetch: r.fetch });
    const watch = await qp.watchLeaderboard('quest-1', { intervalMs: 20 });
    const stop = watch.subscribe(() => {});
    await until(() => watch.getSnapshot() !== null);
    expect(watch.getSnapshot()?.pending).toBe(0);
    qp.award({ eventPoints: 15 });
    await until(() => watch.getSnapshot()?.pending === 15);
    const view = watch.getSnapshot();
    expect(view?.you).toEqual({ rank: 2, points: 10 });
    expect(view?.top.map((row) => row.points)).toEqual([50, 10]);
    expect(view?.group.totalPoints).toBe(60);
    stop();
  });

  it("sends through the SDK's HTTP layer with the client's getToken: one more token for the watch, then none per read", async () => {
    const r = relay();
    let tokens = 0;
    const qp = client({
      fetch: r.fetch,
      getToken: () => {
        tokens++;
        return jwt('player-1', Date.now() / 1000 + 3600);
      },
    });
    await qp.fetchPoints();
    const watch = await qp.watchLeaderboard('quest-1', { intervalMs: 20 });
    const stop = watch.subscribe(() => {});
    await until(() => r.reads.length >= 3);
    expect(tokens).toBe(2);
    stop();
  });

  it('refuses direct mode, naming the relay', async () => {
    const qp = client({
      fetch: fakeRelay().fetch,
      relayUrl: undefined,
      getToken: undefined,
      direct: { url: 'http://service.test', apiKey: 'k' },
      dangerouslyAllowBrowser: true,
    });
    await expect(qp.watchLeaderboard('quest-1')).rejects.toMatchObject({ code: 'config', message: expect.stringMatching(/relay/) });
  });
});
