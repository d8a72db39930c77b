import { randomInt } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { parseFlags, parsePort, stopOnSignals } from '../kit/index.js';
import { checkRule, parseWith, WALLET_CHAIN_RULE } from '../protocol/index.js';
import { FaultConfigSchema, type FaultConfig } from './faults.js';
import { startEmulator, type RunningEmulator } from './server.js';
import type { EmulatorMode } from './types.js';

export const EMULATOR_USAGE = `usage: quest-points emulator [options]

Run a local Quest Points Service.

options:
  --host HOST              address to bind (default 127.0.0.1)
  --port PORT              port, 0 picks a free one (default 8787)
  --mode MODE              stateful (default) or sandbox (the spec's test environment)
  --api-key KEY            an accepted API_KEY; repeat for more (also QP_API_KEY, comma-separated;
                           default dev-api-key when neither is given)
  --admin                  enable the /__emulator/* admin routes (reset, seed, state, requests, faults, mode);
                           they answer loopback callers only
  --admin-from-any-address let the admin routes answer other machines too (an emulator in a container)
  --import FILE            start from a state file (as exported by GET /__emulator/state)
  --export-on-exit FILE    write the state to FILE on SIGINT/SIGTERM
  --no-auto-create         identify answers 404 "User not found" for unknown users (default: creates them)
  --chain CHAIN            allow this wallet.chain in identify; repeat for more (default: any chain)
  --idempotency-ttl TIME   how long a finished IDEMPOTENCY_KEY is remembered: 30s, 15m, 24h, 7d or seconds
                           (default 24h)
  --faults JSON            fault injection from the start, as PUT /__emulator/faults takes it, e.g.
                           '{"errorRate":0.3,"lostAckRate":0.1,"seed":7}' (the seed makes a run repeatable)
  --request-log-size N     request-log entries kept, oldest dropped first (default 10000)
  -h, --help               show this help`;

interface EmulatorCliOptions {
  host: string;
  port: number;
  mode: EmulatorMode;
  apiKeys: string[];
  admin: boolean;
  adminFromAnyAddress: boolean;
  importFile: string | undefined;
  exportFile: string | undefined;
  autoCreate: boolean;
  /** The wallet.chain allowlist; undefined: any chain. */
  chains: string[] | undefined;
  idempotencyTtlMs: number | undefined;
  faults: FaultConfig | undefined;
  requestLogSize: number | undefined;
}

const DURATION_UNITS_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30s`, `15m`, `24h`, `7d`, or bare seconds (as `quest-points token --ttl`), in milliseconds; undefined if malformed. */
function durationMs(text: string): number | undefined {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * DURATION_UNITS_MS[(match[2] || 's') as keyof typeof DURATION_UNITS_MS];
  return ms > 0 ? ms : undefined;
}

/** The flags that map onto EmulatorOptions beyond host, port, mode, keys and admin. */
function parseTuning(values: {
  chain?: string[] | undefined;
  'idempotency-ttl'?: string | undefined;
  faults?: string | undefined;
  'request-log-size'?: string | undefined;
}): Pick<EmulatorCliOptions, 'chains' | 'idempotencyTtlMs' | 'faults' | 'requestLogSize'> | { error: string } {
  const chains: string[] = [];
  for (const chain of values.chain ?? []) {
    const checked = checkRule(WALLET_CHAIN_RULE, chain);
    if (!checked.ok) return { error: `--chain ${checked.message}` };
    chains.push(String(checked.value));
  }
  let idempotencyTtlMs: number | undefined;
  if (values['idempotency-ttl'] !== undefined) {
    idempotencyTtlMs = durationMs(values['idempotency-ttl']);
    if (idempotencyTtlMs === undefined) return { error: '--idempotency-ttl must be a positive duration: 30s, 15m, 24h, 7d or seconds' };
  }
  let faults: FaultConfig | undefined;
  if (values.faults !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(values.faults);
    } catch {
      return { error: '--faults must be JSON, e.g. \'{"errorRate":0.3,"seed":7}\'' };
    }
    // valibot's object schemas take arrays too; the admin route's body reader refuses them before, so do we.
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: '--faults must be a JSON object of fault settings' };
    const parsed = parseWith(FaultConfigSchema, json, '--faults ');
    if (!parsed.ok) return { error: parsed.message };
    // A seed of our own when none is given (the emulator would draw one too), so it can be printed and replayed.
    faults = { ...parsed.value, seed: parsed.value.seed ?? randomInt(2 ** 32 - 1) };
  }
  let requestLogSize: number | undefined;
  if (values['request-log-size'] !== undefined) {
    requestLogSize = Number(values['request-log-size']);
    if (!/^\d{1,7}$/.test(values['request-log-size']) || requestLogSize < 1)
      return { error: '--request-log-size must be an integer from 1 to 9999999' };
  }
  return { chains: chains.length ? chains : undefined, idempotencyTtlMs, faults, requestLogSize };
}

const EMULATOR_FLAGS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '8787' },
  mode: { type: 'string', default: 'stateful' },
  'api-key': { type: 'string', multiple: true },
  admin: { type: 'boolean', default: false },
  'admin-from-any-address': { type: 'boolean', default: false },
  import: { type: 'string' },
  'export-on-exit': { type: 'string' },
  'no-auto-create': { type: 'boolean', default: false },
  chain: { type: 'string', multiple: true },
  'idempotency-ttl': { type: 'string' },
  faults: { type: 'string' },
  'request-log-size': { type: 'string' },
} as const;
type EmulatorFlags = ReturnType<typeof parseFlags<typeof EMULATOR_FLAGS>>;

/** Parse argv (strict); a message naming the flag and the rule on error. `help` when asked. */
export function parseEmulatorArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): EmulatorCliOptions | 'help' | { error: string } {
  let values: EmulatorFlags;
  let port: number;
  try {
    values = parseFlags(argv, EMULATOR_FLAGS);
    if (values.help) return 'help';
    port = parsePort(values.port);
  } catch (error) {
    return { error: (error as Error).message };
  }
  if (values.mode !== 'stateful' && values.mode !== 'sandbox') return { error: "--mode must be 'stateful' or 'sandbox'" };
  if (values.host.trim() === '') return { error: '--host must not be empty' };
  const fromEnv = (env.QP_API_KEY ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const apiKeys = [...(values['api-key'] ?? []), ...fromEnv];
  if (apiKeys.some((key) => key.trim() === '')) return { error: '--api-key must not be empty' };
  const tuning = parseTuning(values);
  if ('error' in tuning) return tuning;
  return {
    host: values.host,
    port,
    mode: values.mode,
    apiKeys,
    admin: values.admin,
    adminFromAnyAddress: values['admin-from-any-address'],
    importFile: values.import,
    exportFile: values['export-on-exit'],
    autoCreate: !values['no-auto-create'],
    ...tuning,
  };
}

/** `quest-points emulator ...`: prints `listening on http://HOST:PORT` once ready; SIGINT/SIGTERM stop it cleanly. */
export async function emulatorCommand(argv: string[]): Promise<void> {
  const parsed = parseEmulatorArgs(argv);
  if (parsed === 'help') {
    console.log(EMULATOR_USAGE);
    return;
  }
  if ('error' in parsed) {
    console.error(`quest-points emulator: ${parsed.error}\n\n${EMULATOR_USAGE}`);
    process.exitCode = 2;
    return;
  }

  let state: unknown;
  if (parsed.importFile) {
    try {
      state = JSON.parse(await readFile(parsed.importFile, 'utf8'));
    } catch (error) {
      console.error(`quest-points emulator: --import ${parsed.importFile}: ${(error as Error).message}`);
      process.exitCode = 1;
      return;
    }
    // The file may be the admin route's answer ({ success, data }) or the bare state.
    if (state && typeof state === 'object' && 'data' in state && (state as { success?: unknown }).success === true) {
      state = (state as { data: unknown }).data;
    }
  }

  let server: RunningEmulator;
  try {
    server = await startEmulator({
      host: parsed.host,
      port: parsed.port,
      mode: parsed.mode,
      admin: parsed.admin,
      adminFromAnyAddress: parsed.adminFromAnyAddress,
      ...(parsed.apiKeys.length ? { apiKeys: parsed.apiKeys } : {}),
      ...(state !== undefined ? { state: state as never } : {}),
      autoCreate: parsed.autoCreate,
      ...(parsed.chains ? { chains: parsed.chains } : {}),
      ...(parsed.idempotencyTtlMs !== undefined ? { idempotencyTtlMs: parsed.idempotencyTtlMs } : {}),
      ...(parsed.faults ? { faults: parsed.faults } : {}),
      ...(parsed.requestLogSize !== undefined ? { requestLogSize: parsed.requestLogSize } : {}),
    });
  } catch (error) {
    console.error(`quest-points emulator: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  console.log(`listening on ${server.url}`);
  // With the seed in effect: the same seed and the same request order replay the same faults.
  if (parsed.faults) console.error(`quest-points emulator: faults ${JSON.stringify(parsed.faults)}`);

  stopOnSignals(async (signal) => {
    if (parsed.exportFile) await writeFile(parsed.exportFile, `${JSON.stringify(server.exportState(), null, 2)}\n`);
    await server.close();
    console.error(`quest-points emulator: stopped (${signal})`);
  }, 'emulator');
}
