import { readFile, writeFile } from 'node:fs/promises';
import { parseFlags, parsePort, stopOnSignals } from '../kit/index.js';
import { startEmulator } from './server.js';
import type { EmulatorMode } from './types.js';

export const EMULATOR_USAGE = `usage: quest-points emulator [options]

Run a local Quest Points Service.

options:
  --host HOST              address to bind (default 127.0.0.1)
  --port PORT              port, 0 picks a free one (default 8787)
  --mode MODE              stateful (default) or sandbox (the spec's test environment)
  --api-key KEY            an accepted API_KEY; repeat for more (also QP_API_KEY, comma-separated;
                           default dev-api-key when neither is given)
  --admin                  enable the /__emulator/* admin routes (reset, seed, state, requests, faults, mode)
  --import FILE            start from a state file (as exported by GET /__emulator/state)
  --export-on-exit FILE    write the state to FILE on SIGINT/SIGTERM
  -h, --help               show this help`;

interface EmulatorCliOptions {
  host: string;
  port: number;
  mode: EmulatorMode;
  apiKeys: string[];
  admin: boolean;
  importFile: string | undefined;
  exportFile: string | undefined;
}

/** Parse argv (strict); a message naming the flag and the rule on error. `help` when asked. */
export function parseEmulatorArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): EmulatorCliOptions | 'help' | { error: string } {
  try {
    const values = parseFlags(argv, {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8787' },
      mode: { type: 'string', default: 'stateful' },
      'api-key': { type: 'string', multiple: true },
      admin: { type: 'boolean', default: false },
      import: { type: 'string' },
      'export-on-exit': { type: 'string' },
    });
    if (values.help) return 'help';
    const port = parsePort(values.port);
    if (values.mode !== 'stateful' && values.mode !== 'sandbox') return { error: "--mode must be 'stateful' or 'sandbox'" };
    if (values.host.trim() === '') return { error: '--host must not be empty' };
    const fromEnv = (env.QP_API_KEY ?? '').split(',').map((key) => key.trim()).filter(Boolean);
    const apiKeys = [...(values['api-key'] ?? []), ...fromEnv];
    if (apiKeys.some((key) => key.trim() === '')) return { error: '--api-key must not be empty' };
    return {
      host: values.host,
      port,
      mode: values.mode,
      apiKeys,
      admin: values.admin,
      importFile: values.import,
      exportFile: values['export-on-exit'],
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
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

  let server;
  try {
    server = await startEmulator({
      host: parsed.host,
      port: parsed.port,
      mode: parsed.mode,
      admin: parsed.admin,
      ...(parsed.apiKeys.length ? { apiKeys: parsed.apiKeys } : {}),
      ...(state !== undefined ? { state: state as never } : {}),
    });
  } catch (error) {
    console.error(`quest-points emulator: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  console.log(`listening on ${server.url}`);

  stopOnSignals(async (signal) => {
    if (parsed.exportFile) await writeFile(parsed.exportFile, `${JSON.stringify(server.exportState(), null, 2)}\n`);
    await server.close();
    console.error(`quest-points emulator: stopped (${signal})`);
  }, 'emulator');
}
