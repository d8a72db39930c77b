import { startNodeServer, takeLimits, type ServerLimits } from '../kit/index.js';
import { buildEmulator } from './app.js';
import type { EmulatorState } from './state.js';
import type { EmulatorOptions, RunningServer } from './types.js';

export interface RunningEmulator extends RunningServer {
  /** The state as GET /__emulator/state would export it (works with admin off). */
  exportState(): EmulatorState;
}

/** The emulator on Node (@hono/node-server). Resolves once listening; port 0 picks a free port. */
export async function startEmulator(options: EmulatorOptions & ServerLimits & { host?: string; port?: number } = {}): Promise<RunningEmulator> {
  const [limits, { host = '127.0.0.1', port = 8787, ...emulatorOptions }] = takeLimits(options);
  const { app, core } = buildEmulator(emulatorOptions);
  const running = await startNodeServer({ fetch: app.fetch, host, port, ...limits });
  return { ...running, exportState: core.exportState };
}
