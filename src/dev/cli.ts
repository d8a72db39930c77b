import { parseArgs } from 'node:util';
import { NotLoopbackError, startDevServer } from './serve.js';

const USAGE = `usage: quest-points dev [--host 127.0.0.1] [--port 8787] [--mode stateful|sandbox]

Runs the emulator and a dev relay on one loopback port, for games with their own dev server:
  /api/*          the relay (player tokens, policy, batch endpoint)
  /__emulator/*   the emulator's admin routes (reset, seed, state, faults, mode)
  /__dev/token    mints a 15-minute player or admin token (loopback clients only)
Pages served from any loopback origin may call it (CORS). Dev mode refuses non-loopback hosts.`;

export async function devCommand(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8787' },
        mode: { type: 'string', default: 'stateful' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return exit(`quest-points dev: ${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) return void console.log(USAGE);
  const port = Number(values.port);
  if (!/^\d{1,5}$/.test(values.port) || port > 65535) return exit(`quest-points dev: --port must be an integer from 0 to 65535, got "${values.port}"`);
  if (values.mode !== 'stateful' && values.mode !== 'sandbox') return exit(`quest-points dev: --mode must be stateful or sandbox, got "${values.mode}"`);

  try {
    const running = await startDevServer({ host: values.host, port, mode: values.mode });
    console.log(`quest-points dev (emulator in ${values.mode} mode)`);
    console.log(`relay     listening on ${running.urls.relay}`);
    console.log(`emulator  listening on ${running.urls.emulator}`);
    console.log(`tokens    listening on ${running.urls.token}`);
    const stop = () => void running.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    if (error instanceof NotLoopbackError) return exit(`quest-points dev: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') return exit(`quest-points dev: port ${port} on ${values.host} is in use; pass --port <free port> (0 picks one)`);
    throw error;
  }
}

function exit(message: string): never {
  console.error(message);
  process.exit(2);
}
