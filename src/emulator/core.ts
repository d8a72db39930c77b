import * as v from 'valibot';
import { formatIssues, normaliseChain } from '../protocol/index.js';
import { createFaults } from './faults.js';
import { createIdempotencyStore } from './idempotency.js';
import { createLedger } from './ledger.js';
import { createRequestLog } from './request-log.js';
import { EmulatorStateSchema, exportState, importState, type EmulatorState } from './state.js';
import { DEFAULT_API_KEYS, DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_REQUEST_LOG_SIZE, type EmulatorMode, type EmulatorOptions } from './types.js';
import { createUserDirectory } from './users.js';

/** Everything one emulator instance holds; the routes are functions of it. */
export function createCore(options: EmulatorOptions = {}) {
  const now = options.now ?? Date.now;
  const users = createUserDirectory();
  const ledger = createLedger();
  const idempotency = createIdempotencyStore({ ttlMs: options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, now });
  const parts = { users, ledger, idempotency };
  const core = {
    mode: (options.mode ?? 'stateful') as EmulatorMode,
    apiKeys: [...(options.apiKeys ?? DEFAULT_API_KEYS)],
    autoCreate: options.autoCreate ?? true,
    chains: options.chains ? new Set(options.chains.map(normaliseChain)) : null,
    now,
    users,
    ledger,
    idempotency,
    log: createRequestLog(options.requestLogSize ?? DEFAULT_REQUEST_LOG_SIZE),
    faults: createFaults(options.faults),
    exportState: (): EmulatorState => exportState(parts),
    /** Replace the whole state; a message naming the field and rule when `input` is not a valid state. */
    importState(input: unknown): string | undefined {
      const parsed = v.safeParse(EmulatorStateSchema, input);
      if (!parsed.success) return `state${v.getDotPath(parsed.issues[0]) ? '.' : ' '}${formatIssues(parsed.issues)}`;
      return importState(parts, parsed.output);
    },
    reset() {
      users.clear();
      ledger.clear();
      idempotency.clear();
      core.log.clear({ resetSeq: true });
      core.faults.clear();
    },
  };
  if (options.state !== undefined) {
    const problem = core.importState(options.state);
    if (problem) throw new TypeError(`options.state is not a valid emulator state: ${problem}`);
  }
  return core;
}

export type Core = ReturnType<typeof createCore>;
