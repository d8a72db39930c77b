// `quest-points webhooks dead|replay`: the admin routes of a running relay, from a terminal.
import { ConfigError, parseFlags, runCommand } from '../../kit/index.js';
import { signPlayerToken } from '../token.js';

const USAGE = `usage: quest-points webhooks dead [--relay URL] [--limit N]
       quest-points webhooks replay [--relay URL] (--id ID [--id ID]... | --all)

  dead     print the webhook dead letters (deliveries that ran out of attempts, or met 410 Gone), one JSON line each
  replay   send dead letters again, from their first attempt: --id for those webhook ids (an award's key), --all for
           every one (and endpoints that answered 410 Gone take deliveries again)

  --relay URL   the relay (default QP_RELAY_URL, else http://127.0.0.1:8788)

The admin token: QP_ADMIN_TOKEN, else one signed here for 5 minutes with QP_RELAY_SECRET (role admin, sub
"quest-points-cli").`;

/** The admin token: QP_ADMIN_TOKEN, or a short one signed with the relay secret. */
async function adminToken(): Promise<string> {
  const given = process.env.QP_ADMIN_TOKEN;
  if (given) return given;
  const secret = process.env.QP_RELAY_SECRET;
  if (!secret)
    throw new ConfigError('QP_ADMIN_TOKEN', 'missing', 'set QP_ADMIN_TOKEN (a relay token with role "admin"), or QP_RELAY_SECRET to sign one');
  return signPlayerToken({ sub: 'quest-points-cli', role: 'admin' }, { secret, ttl: 300 });
}

/** One admin call; a refusal is thrown with the relay's message. */
async function admin(relay: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(new URL(path, relay.endsWith('/') ? relay : `${relay}/`), {
    method,
    headers: { authorization: `Bearer ${await adminToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(`the relay answered ${response.status}: ${String(answer.message ?? response.statusText)}`);
  return answer;
}

/** `quest-points webhooks <dead|replay> [options]`. */
export async function webhooksCommand(argv: string[]): Promise<void> {
  await runCommand('webhooks', USAGE, async () => {
    const [action, ...rest] = argv;
    if (action === '--help' || action === '-h' || action === undefined) return void console.log(USAGE);
    const values = parseFlags(rest, {
      relay: { type: 'string' },
      limit: { type: 'string' },
      id: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
    });
    if (values.help) return void console.log(USAGE);
    const relay = values.relay ?? process.env.QP_RELAY_URL ?? 'http://127.0.0.1:8788';
    if (action === 'dead') {
      const limit = values.limit === undefined ? '' : `?limit=${encodeURIComponent(values.limit)}`;
      const { dead } = await admin(relay, 'GET', `admin/webhooks/dead${limit}`);
      for (const letter of dead as unknown[]) console.log(JSON.stringify(letter));
      return;
    }
    if (action !== 'replay') throw new ConfigError('argv', 'invalid', `unknown action "${action}": use dead or replay`);
    const ids = values.id ?? [];
    if (values.all === ids.length > 0) throw new ConfigError('--id', 'invalid', 'replay needs --id ID (repeatable) or --all, not both');
    const { replayed } = await admin(relay, 'POST', 'admin/webhooks/replay', values.all ? { all: true } : { ids });
    console.log(`replayed ${String(replayed)}`);
  });
}
