// Where the relay keeps each quest's leaderboard: the interface every store answers, and the memory store (one
// instance, bounded). The Redis store (sorted sets) is node/redis-leaderboard.ts. Ranks are competition ranks: ties
// share a rank and the next rank skips (100, 90, 90, 80 -> 1, 2, 2, 4); among tied players the order is the store's
// (by id, descending, as Redis orders equal scores): stable, not meaningful.

/** One player's place on a board. */
export interface LeaderboardRow {
  /** The player (their serviceUserId): never shown to another player as such (routes.ts names them). */
  player: string;
  /** 1-based competition rank: 1 + the number of players with more points. */
  rank: number;
  /** The player's points on this board (exact to 6 decimals). */
  points: number;
}

/** A quest's whole group: every player the board holds. */
export interface LeaderboardGroup {
  /** Every player's points summed (reversals subtracted). */
  totalPoints: number;
  /** How many players the board holds. */
  players: number;
}

/** A player's rank and the players around them (`around` includes the player). */
export interface LeaderboardAround {
  /** The player's own row; null when they have no points on this board yet. */
  you: LeaderboardRow | null;
  /** Up to k players above, the player, up to k below, best first. Empty when `you` is null. */
  around: LeaderboardRow[];
}

/**
 * What reconciliation with the service needs of a store (reconcile.ts): both stores here have it; a store without it
 * cannot be reconciled (createRelay says so).
 */
export interface LeaderboardReconcileStore {
  /** The player's exact score on the board (undefined: not on it), as `set`'s `expected` compares it. */
  score(questId: string, player: string): Promise<number | undefined>;
  /**
   * Set the player's score to `points` (the service's total) and move the group total by the difference. With
   * `expected` (a `score` read before the service was asked; null: not on the board) only if the score is still that:
   * an award the feed counted meanwhile is not overwritten (resolves false; the next pass sets it).
   */
  set(questId: string, player: string, points: number, expected?: number | null): Promise<boolean>;
  /** Take (or, held by `owner`, renew) the quest's reconciliation lease for `ttlMs`; false when another owner holds it. */
  lease(questId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Give the lease up, if `owner` still holds it. */
  release(questId: string, owner: string): Promise<void>;
  /** Where an unfinished pass stopped (the offset in the enrolled-users list); undefined when none is under way. */
  cursor(questId: string): Promise<number | undefined>;
  /** Keep where the pass is (undefined: the pass is done, the next one starts at 0). */
  saveCursor(questId: string, offset: number | undefined): Promise<void>;
}

/** Where leaderboards live: createMemoryLeaderboardStore, createRedisCounterStore(...).leaderboard. */
export interface LeaderboardStore {
  /**
   * Add `points` (negative for a reversal) to the player's score. With a `key` (the award's upstream idempotency key)
   * an award already counted is not counted again (resolves false), within the store's memory of keys.
   */
  add(questId: string, player: string, points: number, key?: string): Promise<boolean>;
  /** The best `n` players, best first. */
  top(questId: string, n: number): Promise<LeaderboardRow[]>;
  /** The player's rank and up to `k` players either side. */
  around(questId: string, player: string, k: number): Promise<LeaderboardAround>;
  /** The group's total points and player count. */
  group(questId: string): Promise<LeaderboardGroup>;
  // Reconciliation's part (LeaderboardReconcileStore), optional: a store without it cannot be reconciled.
  /** See LeaderboardReconcileStore `score`. */
  score?: LeaderboardReconcileStore['score'];
  /** See LeaderboardReconcileStore `set`. */
  set?: LeaderboardReconcileStore['set'];
  /** See LeaderboardReconcileStore `lease`. */
  lease?: LeaderboardReconcileStore['lease'];
  /** See LeaderboardReconcileStore `release`. */
  release?: LeaderboardReconcileStore['release'];
  /** See LeaderboardReconcileStore `cursor`. */
  cursor?: LeaderboardReconcileStore['cursor'];
  /** See LeaderboardReconcileStore `saveCursor`. */
  saveCursor?: LeaderboardReconcileStore['saveCursor'];
}

/** Bounds of createMemoryLeaderboardStore. */
export interface MemoryLeaderboardOptions {
  /** Most quests kept; past it the quest least recently moved is forgotten. Default 100. */
  maxQuests?: number;
  /** Most players per quest; past it the lowest-scoring player is dropped for the newcomer. Default 10,000. */
  maxPlayers?: number;
  /** Most award keys remembered (to count an award once); the oldest is forgotten first. Default 100,000. */
  maxKeys?: number;
}

/** Points as totals are kept: exact to 6 decimals (protocol POINTS_DECIMALS), no float noise from summing. */
export const roundPoints = (points: number): number => Math.round(points * 1e6) / 1e6;

/**
 * Competition ranks over a slice of a board sorted best first: the slice starts at 0-based position `offset`, its
 * first row's rank is `firstRank` (1 + the players with more points: ties above the slice share it).
 */
export function ranked(rows: readonly { player: string; points: number }[], offset: number, firstRank: number): LeaderboardRow[] {
  const out: LeaderboardRow[] = [];
  for (const [i, row] of rows.entries()) {
    const previous = out[i - 1];
    const rank = i === 0 ? firstRank : previous && previous.points === row.points ? previous.rank : offset + i + 1;
    out.push({ player: row.player, rank, points: roundPoints(row.points) });
  }
  return out;
}

interface Board {
  scores: Map<string, number>;
  total: number;
  /** Best first, rebuilt on the first read after a change. */
  sorted?: { player: string; points: number }[];
}

const byRank = (a: { player: string; points: number }, b: { player: string; points: number }) =>
  b.points - a.points || (a.player < b.player ? 1 : a.player > b.player ? -1 : 0);

/**
 * Leaderboards in this process's memory: one relay instance only (several instances each keep their own: use Redis).
 * A read after a change sorts the quest's board once (O(n log n), n ≤ maxPlayers); reads in between reuse it.
 */
export function createMemoryLeaderboardStore(options: MemoryLeaderboardOptions = {}): LeaderboardStore & LeaderboardReconcileStore {
  const maxQuests = options.maxQuests ?? 100;
  const maxPlayers = options.maxPlayers ?? 10_000;
  const maxKeys = options.maxKeys ?? 100_000;
  const boards = new Map<string, Board>();
  const keys = new Set<string>();
  const sortedOf = (board: Board) => {
    board.sorted ??= [...board.scores].map(([player, points]) => ({ player, points })).sort(byRank);
    return board.sorted;
  };
  const empty: Board = { scores: new Map(), total: 0 };
  const leases = new Map<string, { owner: string; until: number }>();
  const cursors = new Map<string, number>();
  /** The quest's board, made most recently moved (a room made for `player` if new). */
  const moved = (questId: string, player: string) => {
    let board = boards.get(questId);
    if (board) boards.delete(questId);
    else {
      board = { scores: new Map(), total: 0 };
      if (boards.size >= maxQuests) boards.delete(boards.keys().next().value as string);
    }
    // Most recently moved last: the first in the Map is the one forgotten.
    boards.set(questId, board);
    if (!board.scores.has(player) && board.scores.size >= maxPlayers) {
      const lowest = sortedOf(board).at(-1) as { player: string; points: number };
      board.scores.delete(lowest.player);
      board.total -= lowest.points;
    }
    board.sorted = undefined;
    return board;
  };
  return {
    async add(questId, player, points, key) {
      if (key !== undefined) {
        const seen = `${questId}\n${key}`;
        if (keys.has(seen)) return false;
        if (keys.size >= maxKeys) keys.delete(keys.values().next().value as string);
        keys.add(seen);
      }
      const board = moved(questId, player);
      board.scores.set(player, (board.scores.get(player) ?? 0) + points);
      board.total += points;
      return true;
    },
    async score(questId, player) {
      return boards.get(questId)?.scores.get(player);
    },
    async set(questId, player, points, expected) {
      if (expected !== undefined && (boards.get(questId)?.scores.get(player) ?? null) !== expected) return false;
      const board = moved(questId, player);
      board.total += points - (board.scores.get(player) ?? 0);
      board.scores.set(player, points);
      return true;
    },
    async lease(questId, owner, ttlMs) {
      const now = Date.now();
      const held = leases.get(questId);
      if (held && held.owner !== owner && held.until > now) return false;
      leases.set(questId, { owner, until: now + ttlMs });
      return true;
    },
    async release(questId, owner) {
      if (leases.get(questId)?.owner === owner) leases.delete(questId);
    },
    async cursor(questId) {
      return cursors.get(questId);
    },
    async saveCursor(questId, offset) {
      if (offset === undefined) cursors.delete(questId);
      else cursors.set(questId, offset);
    },
    async top(questId, n) {
      return ranked(sortedOf(boards.get(questId) ?? empty).slice(0, n), 0, 1);
    },
    async around(questId, player, k) {
      const board = boards.get(questId);
      if (!board?.scores.has(player)) return { you: null, around: [] };
      const sorted = sortedOf(board);
      const at = sorted.findIndex((row) => row.player === player);
      const from = Math.max(0, at - k);
      const window = sorted.slice(from, at + k + 1);
      const first = window[0] as { points: number };
      // The first row's rank: 1 + everyone with more points (ties above the window included).
      const rows = ranked(window, from, 1 + sorted.findIndex((row) => row.points === first.points));
      return { you: rows[at - from] ?? null, around: rows };
    },
    async group(questId) {
      const board = boards.get(questId);
      return { totalPoints: roundPoints(board?.total ?? 0), players: board?.scores.size ?? 0 };
    },
  };
}
