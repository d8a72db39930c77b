// IDEMPOTENCY_KEY handling (IETF Idempotency-Key draft, Stripe): records are keyed by (hash of the API key,
// idempotency key); a finished request is replayed, a different body under the same key is 422, a repeat while
// the first is still running is 409. A request that was not applied is never recorded as finished.

export interface FinishedRecord {
  /** SHA-256 (hex) of the API key the request came with: keys of different callers never meet. */
  scope: string;
  /** Lower-cased UUID. */
  key: string;
  /** Route, questId and the canonical parsed body: what "the same request" means. */
  fingerprint: string;
  status: number;
  body: string;
  expiresAt: number;
}

interface Entry {
  fingerprint: string;
  finished: FinishedRecord | null;
  expiresAt: number;
}

export type Claim =
  | { kind: 'new'; finish(status: number, body: string): void; release(): void }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' };

export function createIdempotencyStore(options: { ttlMs: number; now: () => number }) {
  const entries = new Map<string, Entry>();
  const id = (scope: string, key: string) => `${scope}:${key}`;

  // Entries are inserted in time order with one TTL, so the expired ones are at the front.
  function sweep(now: number) {
    for (const [name, entry] of entries) {
      if (entry.expiresAt > now) break;
      entries.delete(name);
    }
  }

  function claim(scope: string, key: string, fingerprint: string): Claim {
    const now = options.now();
    sweep(now);
    const name = id(scope, key);
    const existing = entries.get(name);
    if (existing && existing.expiresAt > now) {
      if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (!existing.finished) return { kind: 'in-flight' };
      return { kind: 'replay', status: existing.finished.status, body: existing.finished.body };
    }
    const entry: Entry = { fingerprint, finished: null, expiresAt: now + options.ttlMs };
    entries.delete(name);
    entries.set(name, entry);
    return {
      kind: 'new',
      finish(status, body) {
        const expiresAt = options.now() + options.ttlMs;
        entry.expiresAt = expiresAt;
        entry.finished = { scope, key, fingerprint, status, body, expiresAt };
        // Move to the back so the map stays in expiry order.
        entries.delete(name);
        entries.set(name, entry);
      },
      release() {
        if (entries.get(name) === entry && !entry.finished) entries.delete(name);
      },
    };
  }

  return {
    claim,
    exportRecords(): FinishedRecord[] {
      const now = options.now();
      const out: FinishedRecord[] = [];
      for (const entry of entries.values()) if (entry.finished && entry.expiresAt > now) out.push(entry.finished);
      return out;
    },
    importRecords(records: readonly FinishedRecord[]) {
      for (const record of [...records].sort((a, b) => a.expiresAt - b.expiresAt)) {
        entries.set(id(record.scope, record.key), { fingerprint: record.fingerprint, finished: { ...record }, expiresAt: record.expiresAt });
      }
    },
    clear: () => entries.clear(),
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;

const scopes = new Map<string, Promise<string>>();

/** SHA-256 hex of an API key (memoised): the store never holds the key itself. */
export function scopeOf(apiKey: string): Promise<string> {
  let scope = scopes.get(apiKey);
  if (!scope) {
    scope = crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(apiKey))
      .then((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''));
    scopes.set(apiKey, scope);
  }
  return scope;
}
