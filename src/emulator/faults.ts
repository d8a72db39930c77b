import * as v from 'valibot';
import type { ObjectOutput } from '../protocol/index.js';

const rate = v.pipe(v.number('must be a number'), v.minValue(0, 'must be at least 0'), v.maxValue(1, 'must be at most 1'));
const milliseconds = v.pipe(
  v.number('must be a number'),
  v.integer('must be an integer'),
  v.minValue(0, 'must be at least 0'),
  v.maxValue(60_000, 'must be at most 60000'),
);

/**
 * Fault injection for the service routes (never the admin routes), as the `faults` option, `--faults` and PUT
 * /__emulator/faults take it. Every field is optional; an empty object (the default) injects nothing. An unknown key
 * is refused, so a misspelt setting is an error rather than a silent no-op.
 */
export const FaultConfigSchema = v.strictObject(
  {
    /** Same seed + same request order -> same faults. Absent: a random seed, reported by GET /__emulator/faults. */
    seed: v.optional(v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.safeInteger('must be a safe integer'))),
    /** Milliseconds added to every service request, 0 to 60 000; default 0. */
    latencyMs: v.optional(milliseconds),
    /** Up to this many more milliseconds (0 to 60 000), drawn uniformly per request; default 0. */
    jitterMs: v.optional(milliseconds),
    /** Fraction (0 to 1) of service requests answered with one of errorStatuses, nothing applied; default 0. */
    errorRate: v.optional(rate),
    /** The statuses errorRate draws from, uniformly; default all three. */
    errorStatuses: v.optional(
      v.pipe(v.array(v.picklist([500, 503, 429], 'must be 500, 503 or 429'), 'must be an array'), v.minLength(1, 'must hold at least one status')),
    ),
    /** Retry-After, in seconds, of an injected 429 (and 503); default 1. */
    retryAfterSeconds: v.optional(v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(0, 'must be at least 0'))),
    /** Fraction (0 to 1) of awards APPLIED and then answered 503 or dropped: the lost acknowledgement; default 0. */
    lostAckRate: v.optional(rate),
    /** How a lost acknowledgement looks: a 503, a dropped connection, or either at even odds (default 'mixed'). */
    lostAckMode: v.optional(v.picklist(['503', 'drop', 'mixed'], "must be '503', 'drop' or 'mixed'")),
  },
  'must be an object of fault settings',
);
/** Fault settings, as FaultConfigSchema reads them. */
export interface FaultConfig extends ObjectOutput<typeof FaultConfigSchema> {}

/** The fault a request-log entry records: an injected error status, or a lost acknowledgement (503 or dropped). */
export type FaultName = 'error-500' | 'error-503' | 'error-429' | 'lost-ack-503' | 'lost-ack-drop';

/** What the faults do to one service request. */
export interface FaultDecision {
  /** Wait this long (ms) before answering. */
  delayMs: number;
  /** Answer this status without doing anything. */
  error: 500 | 503 | 429 | null;
  /** For an award that applies: how its acknowledgement is lost. */
  lostAck: '503' | 'drop' | null;
}

const NO_FAULT: FaultDecision = { delayMs: 0, error: null, lostAck: null };

/** mulberry32: tiny, fast, good enough to spread faults; the point is reproducibility. */
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isActive = (c: FaultConfig) => Boolean(c.latencyMs || c.jitterMs || c.errorRate || c.lostAckRate);

export function createFaults(initial: FaultConfig = {}) {
  let config: FaultConfig = {};
  let random = mulberry32(0);

  function set(next: FaultConfig) {
    config = { ...next, seed: next.seed ?? Math.floor(Math.random() * 2 ** 32) };
    random = mulberry32(config.seed ?? 0);
  }
  set(initial);

  return {
    get: (): FaultConfig => ({ ...config }),
    set,
    clear: () => set({}),
    /** One decision per service request. Every request draws the same count of numbers, so the n-th request's faults depend only on the seed. */
    decide(): FaultDecision {
      if (!isActive(config)) return NO_FAULT;
      const [jitter, errorDraw, errorPick, lostDraw, lostPick] = [random(), random(), random(), random(), random()];
      const statuses = config.errorStatuses ?? [500, 503, 429];
      const mode = config.lostAckMode ?? 'mixed';
      return {
        delayMs: (config.latencyMs ?? 0) + Math.floor(jitter * ((config.jitterMs ?? 0) + 1)),
        error: errorDraw < (config.errorRate ?? 0) ? (statuses[Math.floor(errorPick * statuses.length)] ?? 500) : null,
        lostAck: lostDraw < (config.lostAckRate ?? 0) ? (mode === 'mixed' ? (lostPick < 0.5 ? '503' : 'drop') : mode) : null,
      };
    },
    retryAfterSeconds: () => config.retryAfterSeconds ?? 1,
  };
}

export type Faults = ReturnType<typeof createFaults>;
