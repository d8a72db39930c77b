import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from './errors.js';

type FlagOptions = NonNullable<ParseArgsConfig['options']>;
type WithHelp<T extends FlagOptions> = T & { help: { type: 'boolean'; short: string; default: false } };

/**
 * The values parseArgs gives for these options. Named, so the declarations keep this alias: inferred, tsc inlined
 * node's internal type parameters into cli.d.ts, which fails a consumer that checks libraries (skipLibCheck false).
 */
export type ParsedFlags<T extends FlagOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: WithHelp<T>; strict: true; allowPositionals: false }>
>['values'];

/** Strict flags (node:util parseArgs) plus -h/--help; an unknown flag or a stray word is a ConfigError (`invalid`). */
export function parseFlags<T extends FlagOptions>(argv: string[], options: T): ParsedFlags<T> {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ConfigError('argv', 'invalid', (error as Error).message);
  }
}

/** A port flag: 0-65535, 0 picks a free port. */
export function parsePort(value: string, flag = '--port'): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new ConfigError(flag, 'invalid', `${flag} must be an integer from 0 to 65535`);
  return port;
}

/** A positive whole number flag (ms, seconds, counts); undefined when the flag is absent. */
export function parsePositiveInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,12}$/.test(value) || Number(value) < 1) throw new ConfigError(flag, 'invalid', `${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

/**
 * Run a command: a ConfigError prints one line (plus the usage when a flag was wrong) and exits 2; any other
 * failure prints one line and exits 1. Messages are built from names and rules, never from secret values.
 */
export async function runCommand(name: string, usage: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const config = error instanceof ConfigError;
    const usageHint = config && (error.option === 'argv' || error.option.startsWith('--')) ? `\n\n${usage}` : '';
    console.error(`quest-points ${name}: ${(error as Error).message}${usageHint}`);
    process.exit(config ? 2 : 1);
  }
}

/** SIGINT / SIGTERM run `stop` once (finish in-flight work), then exit 0; a failing stop exits 1. */
export function stopOnSignals(stop: (signal: NodeJS.Signals) => Promise<void>, name: string): void {
  let stopping = false;
  const handler = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    try {
      await stop(signal);
      process.exit(0);
    } catch (error) {
      console.error(`quest-points ${name}: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
