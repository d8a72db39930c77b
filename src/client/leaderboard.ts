// quest-points/leaderboard (issue 36): the relay's GET /group-quests/:questId/leaderboard, read live. An entry of its
// own, not a method of the client: the SDK's entry stays within its 14 KB (a method cost 67 B gzipped up front, with
// 4 B left); a game imports it where it shows a ladder, e.g. `await import('quest-points/leaderboard')`. Conditional
// reads (If-None-Match: a 304 keeps the last view), slower while the page is hidden, none while offline; reads run
// only while someone is subscribed.
import type { QuestPoints } from './client-types.js';
import { QuestPointsError } from './errors.js';
import type { QuestPointsOptions } from './options.js';
import { pointsKey } from './pair.js';
import { DEFAULTS } from './defaults.js';
import { createFetch } from 'ofetch';
import { createTokenCache } from './token.js';
import type { Snapshot } from './types.js';
import { parseIds } from './validate.js';

/** One row as the relay shows it to a player: a name, never an id. */
export interface LeaderboardRow {
  rank: number;
  name: string;
  points: number;
  /** The player's own row. */
  you?: true;
}

/** What a leaderboard watch shows: the relay's answer, and the player's own queued points kept apart. */
export interface LeaderboardView {
  /** The best players, best first. */
  top: LeaderboardRow[];
  /** The player's confirmed place (acknowledged awards only), or null when they have none yet. */
  you: { rank: number; points: number } | null;
  /** The players either side of the player's place, with their own row. */
  around: LeaderboardRow[];
  /** The quest's group: every player's points summed, and how many players. */
  group: { totalPoints: number; players: number };
  /**
   * The player's own awards of this quest still queued in this client (not yet acknowledged): shown beside the rank
   * ("#4 · +15 pending"), never added to anyone's points above.
   */
  pending: number;
  /** Epoch ms of the answer these rows come from (a 304 since confirms them and changes nothing), or null before the first. */
  checkedAt: number | null;
  /** True while reads are paused (offline) or the last read failed: the rows are the last ones known. */
  stale: boolean;
}

/** How a leaderboard is watched. */
export interface LeaderboardOptions {
  /** The quest (default the client's questId). */
  questId?: string;
  /** Rows of the top (default the relay's, 10; at most 100). */
  top?: number;
  /** Players either side of the player's place (default the relay's, 2; at most 25). */
  around?: number;
  /** Ms between reads while the page is visible (default 5,000). */
  intervalMs?: number;
  /** Ms between reads while the page is hidden (default 60,000). */
  hiddenIntervalMs?: number;
}

/** A live leaderboard: a snapshot and its changes, like watchPoints. Reads stop after the last unsubscribe. */
export interface LeaderboardWatch {
  /** The view now (null before the first answer): the same object until it changes. */
  getSnapshot(): LeaderboardView | null;
  /** Calls cb with every new view (now, if there is one); returns unsubscribe. */
  subscribe(cb: (view: LeaderboardView) => void): () => void;
  /** Calls cb with each failed read (the view keeps its last rows, marked stale); returns unsubscribe. */
  onError(cb: (error: QuestPointsError) => void): () => void;
}

const browserOffline = () => typeof navigator !== 'undefined' && navigator.onLine === false;
const hidden = () => typeof document !== 'undefined' && document.visibilityState === 'hidden';

/**
 * Watches a quest's leaderboard through the client's relay: `client` and the `options` it was created with (its
 * relayUrl, getToken, fetch and timeout: ofetch as the SDK sends, with a token cache of its own). The top `top`
 * players, the player's rank and `around` players either side, the group's total; re-read by conditional requests while subscribed (a 304
 * keeps the last view), slower when the page is hidden, paused offline. The player's own queued awards are `pending`,
 * beside the confirmed rank, never in anyone's points. Throws QuestPointsError 'config' in direct mode (the service has
 * no leaderboard) and 'invalid' for a bad questId (default: the client's).
 */
export function watchLeaderboard(client: QuestPoints, options: QuestPointsOptions, opts: LeaderboardOptions = {}): LeaderboardWatch {
  const { direct, relayUrl, timeoutMs = DEFAULTS.timeoutMs } = options;
  if (direct || !relayUrl)
    throw new QuestPointsError('watchLeaderboard needs a relay (relayUrl): the service itself (direct mode) has no leaderboard', 'config');
  const quest = parseIds(opts.questId ?? options.questId, false).questId;
  const { getToken } = options;
  if (typeof getToken !== 'function') throw new QuestPointsError('getToken is required', 'config');
  // ofetch and a token cache of its own over the client's options (the same fetch, getToken and timeout), rather than
  // the client's http.ts: a header and an ETag more there would cost the service worker's bundle, which carries
  // http.ts, bytes it does not have (SW_BUDGET_BYTES). The cost: one more getToken() call per token's life.
  const tokens = createTokenCache(getToken);
  const $fetch = createFetch({ fetch: options.fetch ?? ((input, init) => fetch(input, init)) });
  const base = relayUrl.replace(/\/+$/, '');
  async function get(etag: string | null): Promise<{ status: number; body: Record<string, unknown> | null; etag: string | null }> {
    let token: string;
    try {
      token = await tokens.get();
    } catch (error) {
      throw new QuestPointsError(`getToken() failed: ${(error as Error)?.message ?? error}`, 'auth');
    }
    try {
      const res = await $fetch.raw(base + path, {
        headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
        timeout: timeoutMs,
        retry: false,
        ignoreResponseError: true,
        responseType: 'json',
      });
      if (res.status === 401) tokens.invalidate();
      return { status: res.status, body: res._data ?? null, etag: res.headers.get('etag') };
    } catch (error) {
      const timeout = (error as { cause?: Error })?.cause?.name === 'TimeoutError';
      throw new QuestPointsError(timeout ? `no answer within ${timeoutMs} ms` : 'network error', timeout ? 'timeout' : 'network');
    }
  }
  const own = options.serviceUserId === undefined ? '' : pointsKey(quest, options.serviceUserId);
  const { intervalMs = 5000, hiddenIntervalMs = 60_000 } = opts;
  const query = new URLSearchParams();
  if (opts.top !== undefined) query.set('top', String(opts.top));
  if (opts.around !== undefined) query.set('around', String(opts.around));
  const path = `/group-quests/${encodeURIComponent(quest)}/leaderboard${query.size ? `?${query}` : ''}`;

  const subscribers = new Set<(view: LeaderboardView) => void>();
  const errors = new Set<(error: QuestPointsError) => void>();
  let view: LeaderboardView | null = null;
  let answer: Omit<LeaderboardView, 'pending' | 'checkedAt' | 'stale'> | null = null;
  let etag: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reading = false;
  let stopClient: (() => void) | undefined;
  const pendingOf = (s: Snapshot) => s.points[own]?.pendingPoints ?? 0;
  const paused = () => browserOffline() || !client.getSnapshot().online;

  function show(next: Partial<LeaderboardView>) {
    if (!answer) return;
    const base = { ...answer, pending: pendingOf(client.getSnapshot()), checkedAt: view?.checkedAt ?? null, stale: view?.stale ?? false };
    const made = { ...base, ...next };
    if (view && Object.keys(made).every((k) => made[k as keyof LeaderboardView] === view?.[k as keyof LeaderboardView])) return;
    view = made;
    for (const cb of [...subscribers]) cb(made);
  }

  async function read() {
    timer = undefined;
    if (!subscribers.size || reading) return;
    if (paused()) {
      show({ stale: true });
      return; // resumed by the `online` event or the client's snapshot (listen below)
    }
    reading = true;
    try {
      const got = await get(etag);
      if (got.status === 304)
        show({ stale: false }); // unchanged: the same view, no event
      else if (got.status < 300 && got.body?.success === true) {
        answer = got.body.data as typeof answer;
        etag = got.etag ?? null;
        show({ checkedAt: Date.now(), stale: false });
      } else
        throw new QuestPointsError(
          typeof got.body?.message === 'string' ? got.body.message : `HTTP ${got.status}`,
          got.status === 401 ? 'auth' : 'http',
          got.status,
        );
    } catch (error) {
      show({ stale: true });
      for (const cb of [...errors]) cb(error as QuestPointsError);
    } finally {
      reading = false;
      schedule();
    }
  }

  function schedule(now = false) {
    if (!subscribers.size) return;
    clearTimeout(timer);
    timer = setTimeout(read, now ? 0 : hidden() ? hiddenIntervalMs : intervalMs);
  }

  const wake = () => {
    // Visible again or back online: read now rather than at the end of a hidden page's long wait.
    if (!hidden() && !paused()) schedule(true);
  };
  let wasPaused = false;
  function start() {
    let lastPending = pendingOf(client.getSnapshot());
    stopClient = client.subscribe((s) => {
      const p = pendingOf(s);
      if (p !== lastPending) {
        lastPending = p;
        show({});
      }
      const now = paused();
      if (wasPaused && !now) wake();
      wasPaused = now;
    });
    globalThis.addEventListener?.('online', wake);
    globalThis.document?.addEventListener('visibilitychange', wake);
    schedule(true);
  }
  function stop() {
    clearTimeout(timer);
    timer = undefined;
    stopClient?.();
    stopClient = undefined;
    globalThis.removeEventListener?.('online', wake);
    globalThis.document?.removeEventListener('visibilitychange', wake);
  }

  return {
    getSnapshot: () => view,
    subscribe(cb) {
      subscribers.add(cb);
      if (subscribers.size === 1) start();
      if (view) cb(view);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        subscribers.delete(cb);
        if (!subscribers.size) stop();
      };
    },
    onError(cb) {
      errors.add(cb);
      return () => errors.delete(cb);
    },
  };
}
