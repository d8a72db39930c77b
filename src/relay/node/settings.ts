// The Node adapters' settings, apart from the adapters: the CLI and the package's types read them without loading
// pino or undici, which are optional peers (startRelay imports the adapters only when the packages are installed).
import { ConfigError } from '../../kit/errors.js';

/** Keep-alive connections to the service at once through the undici pool, unless `upstreamConnections` says otherwise. */
export const DEFAULT_UPSTREAM_CONNECTIONS = 128;

/** pino's levels; the relay writes info (every request), warn (4xx, a store outage) and error (5xx, upstream failures). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of pino's levels (LOG_LEVELS): the lowest written. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A level from a flag or the environment; undefined stays undefined; anything else is a ConfigError naming `name`. */
export function parseLogLevel(value: string | undefined, name = 'logLevel'): LogLevel | undefined {
  if (value === undefined || (LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel | undefined;
  throw new ConfigError(name, 'invalid', `${name} must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
}
