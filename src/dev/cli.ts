import { ConfigError, parseFlags, parsePort, runCommand, stopOnSignals } from '../kit/index.js';
import { startDevServer } from './serve.js';

const USAGE = `usage: quest-points dev [--host 127.0.0.1] [--port 8787] [--mode stateful|sandbox]

Runs the emulator and a dev relay on one loopback port, for games with their own dev server:
  /api/*          the relay (player tokens, policy, batch endpoint)
  /__emulator/*   the emulator's admin routes (reset, seed, state, faults, mode) (loopback clients only)
  /__dev/token    mints a 15-minute player or admin token (loopback clients only)
Pages served from any loopback origin may call it (CORS). Dev mode refuses non-loopback hosts.`;

export async function devCommand(argv: string[]): Promise<void> {
  await runCommand('dev', USAGE, async () => {
    const values = parseFlags(argv, {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8787' },
      mode: { type: 'string', default: 'stateful' },
    });
    if (values.help) return void console.log(USAGE);
    const port = parsePort(values.port);
    const mode = values.mode;
    if (mode !== 'stateful' && mode !== 'sandbox') throw new ConfigError('--mode', 'invalid', `--mode must be stateful or sandbox, got "${mode}"`);
    const running = await startDevServer({ host: values.host, port, mode });
    console.log(`quest-points dev (emulator in ${mode} mode)`);
    console.log(`relay     listening on ${running.urls.relay}`);
    console.log(`emulator  listening on ${running.urls.emulator}`);
    console.log(`tokens    listening on ${running.urls.token}`);
    stopOnSignals(() => running.close(), 'dev');
  });
}
