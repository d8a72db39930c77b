// `quest-points webhooks dead|replay`: the webhook admin routes of a running relay, from a terminal (the relay and the
// admin token found as for every admin command: cli.ts).
import { ConfigError, parseFlags, runCommand } from '../../kit/index.js';
import { CONNECTION, connection, connectionFlags, refused } from './cli.js';

const USAGE = `usage: quest-points webhooks dead [--limit N] [--relay URL]
       quest-points webhooks replay (--id ID [--id ID]... | --all) [--relay URL]

  dead     print the webhook dead letters (deliveries that ran out of attempts, or met 410 Gone), one JSON line each
  replay   send dead letters again, from their first attempt: --id for those webhook ids (an award's key), --all for
           every one (endpoints that answered 410 Gone then take deliveries again); prints "replayed N"
${CONNECTION}`;

/** `quest-points webhooks <dead|replay> [options]`. */
export async function webhooksCommand(argv: string[]): Promise<void> {
  await runCommand('webhooks', USAGE, async () => {
    const [action, ...rest] = argv;
    if (action === '--help' || action === '-h') return void console.log(USAGE);
    if (action !== 'dead' && action !== 'replay') {
      throw new ConfigError('argv', 'invalid', `unknown webhooks command "${action ?? ''}": use dead or replay`);
    }
    const values = parseFlags(rest, {
      ...connectionFlags,
      limit: { type: 'string' },
      id: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
    });
    if (values.help) return void console.log(USAGE);
    if (action === 'dead') {
      if (values.limit !== undefined && !/^\d{1,4}$/.test(values.limit)) {
        throw new ConfigError('--limit', 'invalid', `--limit must be a whole number from 1 to 1000, got "${values.limit}"`);
      }
      const { base, headers } = await connection(values);
      const response = await fetch(`${base}/admin/webhooks/dead${values.limit === undefined ? '' : `?limit=${values.limit}`}`, { headers });
      if (!response.ok) await refused(response);
      const { dead } = (await response.json()) as { dead: unknown[] };
      for (const letter of dead) console.log(JSON.stringify(letter));
      return;
    }
    const ids = values.id ?? [];
    if (values.all === ids.length > 0) throw new ConfigError('--id', 'invalid', 'replay needs --id ID (repeatable) or --all, not both');
    const { base, headers } = await connection(values);
    const response = await fetch(`${base}/admin/webhooks/replay`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(values.all ? { all: true } : { ids }),
    });
    if (!response.ok) await refused(response);
    const { replayed } = (await response.json()) as { replayed: number };
    console.log(`replayed ${replayed}`);
  });
}
