// The economy's shared vocabulary: what the award pipeline hands the economy step, what every decision leaves in the
// ledger, and what the admin routes, the CLI and the webhooks read from it. Types only: each piece (rules and their
// store operation, the ledger stores, webhooks, admin routes) lives in its own file of this folder.

/** Where one award's decision ended, as the ledger records it. */
export type LedgerOutcome =
  /** the economy let it through and the relay sent it to the service */
  | 'forwarded'
  /** the service acknowledged it (2xx): the points are applied */
  | 'acknowledged'
  /** the relay refused it (a policy or economy rule, `code` and `rule` say which), or the service refused it */
  | 'refused'
  /** no final answer (the service failed or did not answer in time): the client will send it again */
  | 'failed'
  /** an operator's reversal of an acknowledged award: a negative correction sent to the service */
  | 'reversed'
  /** an operator banned the player (at runtime, through the admin API or the CLI) */
  | 'banned'
  /** an operator lifted a ban */
  | 'unbanned';

/** One decision of the relay, appended to the ledger. */
export interface LedgerEntry {
  /**
   * The entry's id in its ledger, assigned by the store on append: ordered by time (a Redis stream id `<ms>-<seq>`, or
   * the same shape from the memory and Durable Object stores). A reader's cursor.
   */
  id: string;
  /** When the relay decided, ms since the epoch. */
  at: number;
  outcome: LedgerOutcome;
  /** The token's subject: the player who acted (an operator's id for an admin's action). */
  player: string;
  questId: string;
  serviceUserId: string;
  /** The event name as the service records it (DefaultPointsEvent when the award named none). */
  eventName: string;
  eventPoints: number;
  /** The idempotency key sent upstream (keys.ts: derived per player); absent when the client sent none. */
  key?: string;
  /** A refusal's machine-readable code (protocol/refusal.ts REFUSAL_CODES): budget, once, cooldown, campaign, banned... */
  code?: string;
  /** The rule that decided, as the policy names it: `budgets[0]`, `events.level-up.once`, `campaigns.summer`. */
  rule?: string;
  /** The HTTP status the client was answered (or the service answered, for acknowledged / failed). */
  status?: number;
  /** A reversal's original award key (outcome `reversed`). */
  reverses?: string;
  /** The operator (the admin token's `sub`) behind a reversal, a ban or an unban; `player` is the player it concerns. */
  by?: string;
  /** Why: the reason an operator gave for a ban. */
  reason?: string;
  /** The request that carried it (X-Request-Id), to join the access log. */
  requestId?: string;
}

/** An entry as the pipeline appends it: the store assigns its id. */
export type LedgerDraft = Omit<LedgerEntry, 'id'>;

/** What GET /admin/ledger and `quest-points ledger export` filter on. Every field optional. */
export interface LedgerQuery {
  player?: string;
  questId?: string;
  eventName?: string;
  outcome?: LedgerOutcome;
  /** An award's idempotency key (as sent upstream): its entries, and the reversal that `reverses` it. */
  key?: string;
  /** From this time (ms since the epoch), inclusive. */
  from?: number;
  /** To this time, exclusive. */
  to?: number;
  /** Entries after this id (the previous page's last id). */
  after?: string;
  /** Most entries in one page. */
  limit?: number;
}

/** Where the ledger lives: memory (bounded), Redis Streams, a Durable Object. */
export interface LedgerStore {
  /** Append in order; resolves with the ids assigned. Rejects when the store cannot write. */
  append(entries: readonly LedgerDraft[]): Promise<string[]>;
  /** One page of entries matching the query, oldest first, and the cursor of the next page when there is more. */
  read(query: LedgerQuery): Promise<{ entries: LedgerEntry[]; next?: string }>;
  /** Drop what is older than the retention (a store that trims on append may do nothing here). */
  trim?(olderThan: number): Promise<void>;
}

/** Players refused outright at runtime (the policy's `bans` list is the static part), shared across relays by the store. */
export interface BanList {
  /** Refuse this player's awards (403 `banned`) on every relay sharing the store, from their next award. */
  ban(player: string, reason?: string): Promise<void>;
  /** Lift a runtime ban (the policy's `bans` list stays). */
  unban(player: string): Promise<void>;
  /** The players banned at runtime, with when and why. */
  list(): Promise<{ player: string; at: number; reason?: string }[]>;
}
