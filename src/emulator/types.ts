import type { FaultConfig } from './faults.js';
import type { EmulatorState } from './state.js';

/** 'stateful' keeps a real ledger; 'sandbox' answers exactly as the spec's test environment (fixed mock user). */
export type EmulatorMode = 'stateful' | 'sandbox';

/** How an emulator behaves; every option has a default, so `{}` is a working stateful emulator. */
export interface EmulatorOptions {
  /** 'stateful' (default) keeps a real ledger; 'sandbox' answers exactly as the spec's test environment. */
  mode?: EmulatorMode;
  /** Accepted API_KEY values; default ['dev-api-key']. */
  apiKeys?: string[];
  /** Mount the /__emulator/* admin routes (no API_KEY); default false, then they are 404. */
  admin?: boolean;
  /** How long a finished IDEMPOTENCY_KEY is remembered; default 24 h. */
  idempotencyTtlMs?: number;
  /** Identify creates unknown users (stateful mode); default true. false answers 404 "User not found". */
  autoCreate?: boolean;
  /** wallet.chain allowlist (compared case-insensitively); default: any 1-64 characters. */
  chains?: string[];
  /** Initial fault injection; default none. */
  faults?: FaultConfig;
  /** Initial state, as exported by GET /__emulator/state. */
  state?: EmulatorState;
  /** Clock in epoch milliseconds, for tests; default Date.now. */
  now?: () => number;
  /** Most request-log entries kept (oldest dropped first); default 10,000. */
  requestLogSize?: number;
}

export type { RunningServer } from '../kit/index.js';

export const DEFAULT_API_KEYS = ['dev-api-key'];
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_REQUEST_LOG_SIZE = 10_000;
