/** What went wrong with a configuration value; stable, for code that reacts to it (`error.code === 'missing'`). */
export type ConfigErrorCode =
  /** A required option or environment variable is not set. */
  | 'missing'
  /** A value is set but breaks its rule (not a URL, not a number, unknown flag...). */
  | 'invalid'
  /** Dev mode was asked to listen on a non-loopback address. */
  | 'not_loopback'
  /** The host name does not resolve to an address on this machine. */
  | 'host_not_found'
  /** The port is taken, or may not be bound by this user. */
  | 'port_unavailable';

/**
 * The one error every face throws for a bad option, flag or environment variable, before it serves anything.
 * The message names the option and the rule, never a secret's value.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /**
   * Thrown by the start functions and CLIs before anything listens.
   * @param option - The option, flag or variable at fault.
   * @param code - What kind of fault, for code that reacts to it.
   * @param message - The whole message, naming the option and the rule (never a secret's value).
   */
  constructor(
    /** The option, flag or variable at fault, e.g. `secret`, `--port`, `QP_API_KEY`. */
    readonly option: string,
    /** What kind of fault: stable across releases, unlike the message. */
    readonly code: ConfigErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `error` is a ConfigError (of this copy of the package: instanceof, not a duck-typed check). */
export const isConfigError = (error: unknown): error is ConfigError => error instanceof ConfigError;
