import { loopbackOnly, startNodeServer, takeLimits, type ServerLimits } from '../kit/index.js';
import { buildEmulator } from './app.js';
import type { EmulatorState } from './state.js';
import type { EmulatorOptions, RunningServer } from './types.js';

/** A listening emulator: its URL and port, close(), and its state without going through HTTP. */
export interface RunningEmulator extends RunningServer {
  /** The state as GET /__emulator/state would export it (works with admin off). */
  exportState(): EmulatorState;
}

/** startEmulator()'s own options, beside the emulator's and the server limits. */
export interface NodeEmulatorOptions {
  /** The address to bind; default 127.0.0.1. A name that resolves to no address is a ConfigError (`host_not_found`). */
  host?: string;
  /** The port; default 8787, 0 picks a free one (read it back from `port` or `url`). */
  port?: number;
  /**
   * Let the admin routes answer callers on other machines. Default false: with `admin` on, /__emulator/* answers
   * 403 to any caller that is not on a loopback address, whatever host it binds (the routes take no key and can
   * reset, seed or read the whole ledger). For an emulator in a container that tests reach through a published port.
   */
  adminFromAnyAddress?: boolean;
}

/** The emulator on Node (@hono/node-server). Resolves once listening; port 0 picks a free port. */
export async function startEmulator(options: EmulatorOptions & ServerLimits & NodeEmulatorOptions = {}): Promise<RunningEmulator> {
  const [limits, { host = '127.0.0.1', port = 8787, adminFromAnyAddress = false, ...emulatorOptions }] = takeLimits(options);
  const { app, core } = buildEmulator(emulatorOptions);
  const fetch =
    emulatorOptions.admin && !adminFromAnyAddress
      ? loopbackOnly('/__emulator/', 'the admin routes answer loopback callers only (--admin-from-any-address lifts this)', app.fetch)
      : app.fetch;
  const running = await startNodeServer({ fetch, host, port, ...limits });
  return { ...running, exportState: core.exportState };
}
