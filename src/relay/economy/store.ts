// What an economy store does for one award, atomically: check the player's runtime ban, once marker, cooldown and
// budgets, and when all pass reserve them (the marker set, the cooldown started, the points counted), keyed by the
// award's reservation id so that a resend of the same award (the same upstream key) is never counted twice. A release
// undoes one reservation when the service refused the award for good. The memory store here; Redis (node/redis-store.ts
// and economy/redis-scripts.ts) and the Durable Object store do the same in one script or one object.
import { ConfigError } from '../../kit/errors.js';
import { createLru } from '../lru.js';
import type { BanList } from './contract.js';

/** One budget a reservation counts against. Amounts are micro-points (integers: points x 10^6). */
export interface BudgetCharge {
  /** `qp:eco:budget:{alice}:<rule>:<windowStart>` (rolling: `...:<rule>:rolling`). */
  key: string;
  /** The budget's points, in micro-points. */
  limit: number;
  /** This award's points, in micro-points. */
  points: number;
  /** A rolling window's length in ms (absent: a calendar window, the key is the window). */
  rollingMs?: number;
  /** How long the key must live: to the window's end (calendar) or the rolling window's length. */
  ttlMs: number;
}

/** What one award asks of the store: every key carries the player's hash tag. */
export interface Reservation {
  /** The player (the token's sub). */
  owner: string;
  /** The award's upstream idempotency key, or a fresh id for an award without one. */
  id: string;
  /** The relay's clock, ms since the epoch (rolling windows and memory expiry). */
  now: number;
  /** `qp:ban:{alice}`. */
  ban: string;
  /** `qp:eco:res:{alice}:<id>`: what this id reserved, so a resend passes and a release undoes exactly that. */
  marker: string;
  markerTtlMs: number;
  /** `qp:eco:once:{alice}:<quest>:<event>[:<onceKey>]` for a once-only event. */
  once?: string;
  /** `qp:eco:cool:{alice}:<quest>:<event>` and the cooldown's length. */
  cooldown?: { key: string; ms: number };
  budgets: BudgetCharge[];
}

/** The store's answer: reserved (or already reserved under this id), or the first rule that refused. */
export type ReserveAnswer =
  | { ok: true }
  | { ok: false; refused: 'banned' }
  | { ok: false; refused: 'once' }
  | { ok: false; refused: 'cooldown'; waitMs: number }
  /** `index` into the reservation's budgets; `used` micro-points already counted in the window. */
  | { ok: false; refused: 'budget'; index: number; used: number };

/** Where the economy's state lives, shared by every relay that uses the same store. */
export interface EconomyStore {
  /** Check and reserve, atomically for the player. Rejects when the store cannot answer. */
  reserve(reservation: Reservation): Promise<ReserveAnswer>;
  /** Undo the reservation under this id (the service refused the award for good). */
  release(reservation: Reservation): Promise<void>;
  /** Players banned at runtime; `reserve` refuses them. */
  bans: BanList;
  /**
   * The record store whose getWithHit also reserves (Redis: one script for the limiter's hit, the record lookup and
   * the economy): a single award then costs no round trip more with the rules on.
   */
  folds?: object;
}

/** Options of createMemoryEconomyStore. */
export interface MemoryEconomyStoreOptions {
  /** Most keys held (once markers, cooldowns, budget windows, reservations); a key not used lately goes first. Default 200,000. */
  maxKeys?: number;
}

/** One key's value in a store that runs the rules in JS (memory, Durable Object), with its expiry. */
export interface Held {
  expiresAt: number;
  /** A once or cooldown key's reservation id, a calendar budget's micro-points, a rolling budget's entries, a marker's charges. */
  value: string | number | [id: string, points: number, at: number][] | BudgetCharge[];
}

/** The keys a JS store reads and writes for one reservation: synchronous, so one reservation never interleaves another. */
export interface HeldKeys {
  get(key: string): Held | undefined;
  set(key: string, held: Held): void;
  delete(key: string): void;
}

/** Check and reserve over `keys` (what Redis's script does, in JS); `banned`: the player's runtime ban. */
export function reserveIn(keys: HeldKeys, r: Reservation, banned: boolean): ReserveAnswer {
  const { now, id } = r;
  const read = (key: string): Held | undefined => {
    const held = keys.get(key);
    if (held && held.expiresAt <= now) {
      keys.delete(key);
      return undefined;
    }
    return held;
  };
  if (banned) return { ok: false, refused: 'banned' };
  // Nothing to reserve (no once, cooldown or budget applies): the runtime ban was all there was to check.
  if (r.once === undefined && !r.cooldown && r.budgets.length === 0) return { ok: true };
  if (read(r.marker)) return { ok: true };
  const once = r.once === undefined ? undefined : read(r.once);
  if (once) return once.value === id ? { ok: true } : { ok: false, refused: 'once' };
  const cooling = r.cooldown && read(r.cooldown.key);
  if (cooling && cooling.value !== id) return { ok: false, refused: 'cooldown', waitMs: cooling.expiresAt - now };
  const rolling = (charge: BudgetCharge): [string, number, number][] => {
    const held = read(charge.key);
    return held ? (held.value as [string, number, number][]).filter(([, , at]) => at > now - (charge.rollingMs as number)) : [];
  };
  for (const [index, charge] of r.budgets.entries()) {
    const used =
      charge.rollingMs === undefined
        ? ((read(charge.key)?.value as number | undefined) ?? 0)
        : rolling(charge).reduce((sum, [, points]) => sum + points, 0);
    if (used + charge.points > charge.limit) return { ok: false, refused: 'budget', index, used };
  }
  // Every rule passed: reserve all of it.
  if (r.once !== undefined) keys.set(r.once, { value: id, expiresAt: Number.POSITIVE_INFINITY });
  if (r.cooldown) keys.set(r.cooldown.key, { value: id, expiresAt: now + r.cooldown.ms });
  for (const charge of r.budgets) {
    if (charge.rollingMs === undefined) {
      const used = (read(charge.key)?.value as number | undefined) ?? 0;
      const expiresAt = read(charge.key)?.expiresAt ?? now + charge.ttlMs;
      keys.set(charge.key, { value: used + charge.points, expiresAt });
    } else keys.set(charge.key, { value: [...rolling(charge), [id, charge.points, now]], expiresAt: now + charge.ttlMs });
  }
  // The marker is for the budgets (a resend passes, a release undoes the charges): once and cooldown keys hold the id.
  if (r.budgets.length) keys.set(r.marker, { value: r.budgets, expiresAt: now + r.markerTtlMs });
  return { ok: true };
}

/** Undo the reservation under r.id over `keys`: the budgets as its marker recorded them, its once and cooldown keys. */
export function releaseIn(keys: HeldKeys, r: Reservation): void {
  const { now, id } = r;
  const live = (key: string) => {
    const held = keys.get(key);
    return held && held.expiresAt > now ? held : undefined;
  };
  if (r.once !== undefined && live(r.once)?.value === id) keys.delete(r.once);
  if (r.cooldown && live(r.cooldown.key)?.value === id) keys.delete(r.cooldown.key);
  const marker = live(r.marker);
  if (!marker) return;
  keys.delete(r.marker);
  // The charges as reserved (a resend's window may be a later one than the reservation's).
  for (const charge of marker.value as BudgetCharge[]) {
    const held = live(charge.key);
    if (!held) continue;
    const value =
      charge.rollingMs === undefined
        ? Math.max(0, (held.value as number) - charge.points)
        : (held.value as [string, number, number][]).filter(([entry]) => entry !== id);
    keys.set(charge.key, { value, expiresAt: held.expiresAt });
  }
}

/**
 * The economy in this process's memory: right for one relay instance (and tests). Bounded (lru.ts): past `maxKeys`
 * the least used keys go, so on a busy instance an old once marker can be forgotten; several instances, or once-only
 * achievements that must hold for good, use Redis or Durable Objects. Runtime bans are kept apart, never evicted.
 */
export function createMemoryEconomyStore(options: MemoryEconomyStoreOptions = {}): EconomyStore {
  const max = options.maxKeys ?? 200_000;
  if (!Number.isInteger(max) || max < 1) throw new ConfigError('maxKeys', 'invalid', `maxKeys must be a positive integer, got ${max}`);
  const keys = createLru<string, Held>(max);
  const banned = new Map<string, { at: number; reason?: string }>();
  return {
    async reserve(r) {
      return reserveIn(keys, r, banned.has(r.owner));
    },
    async release(r) {
      releaseIn(keys, r);
    },
    bans: {
      async ban(player, reason) {
        banned.set(player, reason === undefined ? { at: Date.now() } : { at: Date.now(), reason });
      },
      async unban(player) {
        banned.delete(player);
      },
      async list() {
        return [...banned].map(([player, entry]) => ({ player, ...entry }));
      },
    },
  };
}
