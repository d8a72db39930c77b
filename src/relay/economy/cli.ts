// The operator's commands against a running relay's admin API: `quest-points ledger export`, `reverse`, `ban`,
// `unban`. The relay's URL from --relay or QP_RELAY_URL; the admin token from QP_ADMIN_TOKEN (never a flag: a flag
// shows in the process list), or signed here for 5 minutes with QP_RELAY_SECRET when that is set.
import { ConfigError, parseFlags, runCommand } from '../../kit/index.js';
import { signPlayerToken } from '../token.js';

/** The connection flags' help, shared by the admin commands (webhooks-cli.ts too). */
export const CONNECTION = `  --relay URL      the relay (or QP_RELAY_URL), e.g. https://relay.example.com
  --as SUB         the operator named in the ledger when the token is signed here (default "quest-points-cli")

The admin token: QP_ADMIN_TOKEN (a relay token with role "admin": quest-points token --sub ops --role admin),
or, when it is unset and QP_RELAY_SECRET is set, a 5-minute admin token signed with it.`;

const LEDGER_USAGE = `usage: quest-points ledger export [--player SUB] [--quest ID] [--event NAME] [--outcome OUTCOME]
                                 [--from TIME] [--to TIME] [--after ID] [--limit N] [--page N] [--relay URL]

Writes the relay's ledger as NDJSON on stdout, one entry a line, oldest first, following the relay's cursor until the
end (or --limit entries). TIME: ISO 8601 (2026-11-28T00:00:00Z) or ms since the epoch; --from inclusive, --to
exclusive. OUTCOME: forwarded, acknowledged, refused, failed, reversed, banned, unbanned. --page: entries per
request (default and most 10000).
${CONNECTION}`;

const REVERSE_USAGE = `usage: quest-points reverse --quest ID --key KEY [--relay URL]

Reverses an acknowledged award (KEY: its key as the ledger shows it): the service is sent a negative correction under
a key derived from KEY, so reversing twice reverses once. Prints the relay's answer (JSON).
${CONNECTION}`;

const BAN_USAGE = `usage: quest-points ban PLAYER [--reason TEXT] [--relay URL]
       quest-points unban PLAYER [--relay URL]

Bans (or lifts the ban of) a player (their token's sub) on every relay sharing the store. Prints the relay's answer.
${CONNECTION}`;

/** --relay and --as, for parseFlags. */
export const connectionFlags = { relay: { type: 'string' }, as: { type: 'string' } } as const;

/** The relay's base URL and the Authorization header of an admin. */
export async function connection(values: { relay?: string | undefined; as?: string | undefined }) {
  const env = process.env;
  const relay = values.relay ?? env.QP_RELAY_URL;
  if (!relay) throw new ConfigError('--relay', 'missing', '--relay URL (or QP_RELAY_URL) is required');
  if (!/^https?:\/\/[^/]/.test(relay)) throw new ConfigError('--relay', 'invalid', `--relay must be an http:// or https:// URL, got "${relay}"`);
  let token = env.QP_ADMIN_TOKEN;
  if (!token && env.QP_RELAY_SECRET) {
    token = await signPlayerToken({ sub: values.as ?? 'quest-points-cli', role: 'admin' }, { secret: env.QP_RELAY_SECRET, ttl: '5m' });
  }
  if (!token)
    throw new ConfigError(
      'QP_ADMIN_TOKEN',
      'missing',
      'QP_ADMIN_TOKEN is not set (nor QP_RELAY_SECRET to sign one): the admin API needs an admin token',
    );
  return { base: relay.replace(/\/+$/, ''), headers: { authorization: `Bearer ${token}` } };
}

/** A refused call: the relay's message, exit 1. */
export async function refused(response: Response): Promise<never> {
  const text = await response.text();
  let message = text.slice(0, 500);
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? message;
  } catch {}
  throw new Error(`the relay answered ${response.status}: ${message}`);
}

/** `quest-points ledger export ...` */
export async function ledgerCommand(argv: string[]): Promise<void> {
  await runCommand('ledger', LEDGER_USAGE, async () => {
    const [sub, ...rest] = argv;
    if (sub === '--help' || sub === '-h') return void console.log(LEDGER_USAGE);
    if (sub !== 'export') throw new ConfigError('argv', 'invalid', `unknown ledger command "${sub ?? ''}": the one command is "export"`);
    const values = parseFlags(rest, {
      ...connectionFlags,
      player: { type: 'string' },
      quest: { type: 'string' },
      event: { type: 'string' },
      outcome: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      after: { type: 'string' },
      limit: { type: 'string' },
      page: { type: 'string' },
    });
    if (values.help) return void console.log(LEDGER_USAGE);
    const total = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
    if (values.limit !== undefined && (!/^\d{1,9}$/.test(values.limit) || total < 1)) {
      throw new ConfigError('--limit', 'invalid', `--limit must be a positive integer, got "${values.limit}"`);
    }
    const page = values.page === undefined ? 10_000 : Number(values.page);
    if (!/^\d{1,5}$/.test(values.page ?? '1') || page < 1 || page > 10_000) {
      throw new ConfigError('--page', 'invalid', `--page must be a whole number from 1 to 10000, got "${values.page}"`);
    }
    const { base, headers } = await connection(values);
    const filters = new URLSearchParams();
    for (const name of ['player', 'quest', 'event', 'outcome', 'from', 'to'] as const) {
      const value = values[name];
      if (value !== undefined) filters.set(name, value);
    }
    let after = values.after;
    let written = 0;
    while (written < total) {
      const query = new URLSearchParams(filters);
      if (after !== undefined) query.set('after', after);
      query.set('limit', String(Math.min(page, total - written)));
      const response = await fetch(`${base}/admin/ledger?${query}`, { headers });
      if (!response.ok || !response.body) await refused(response);
      after = undefined;
      // Line by line as the relay streams them: entries to stdout, the cursor line kept for the next request.
      let rest = '';
      const decoder = new TextDecoder();
      const lines = async function* () {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          rest += decoder.decode(chunk, { stream: true });
          const complete = rest.split('\n');
          rest = complete.pop() ?? '';
          yield* complete;
        }
        if (rest) yield rest;
      };
      for await (const line of lines()) {
        if (!line) continue;
        const cursor = line.startsWith('{"next"') ? (JSON.parse(line) as { next: string; error?: string }) : undefined;
        if (cursor?.error) throw new Error(`the relay stopped the export: ${cursor.error}; go on with --after ${cursor.next}`);
        if (cursor) after = cursor.next;
        else if (!process.stdout.write(`${line}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
        if (!cursor) written++;
      }
      if (after === undefined) break;
    }
  });
}

/** `quest-points reverse --quest Q --key K` */
export async function reverseCommand(argv: string[]): Promise<void> {
  await runCommand('reverse', REVERSE_USAGE, async () => {
    const values = parseFlags(argv, { ...connectionFlags, quest: { type: 'string' }, key: { type: 'string' } });
    if (values.help) return void console.log(REVERSE_USAGE);
    if (!values.quest) throw new ConfigError('--quest', 'missing', '--quest is required');
    if (!values.key) throw new ConfigError('--key', 'missing', "--key is required (the award's key as the ledger shows it)");
    const { base, headers } = await connection(values);
    const response = await fetch(`${base}/admin/reversals`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ questId: values.quest, key: values.key }),
    });
    if (!response.ok) await refused(response);
    console.log(await response.text());
  });
}

/** `quest-points ban PLAYER [--reason TEXT]` */
export async function banCommand(argv: string[]): Promise<void> {
  await banOrUnban('ban', argv);
}

/** `quest-points unban PLAYER` */
export async function unbanCommand(argv: string[]): Promise<void> {
  await banOrUnban('unban', argv);
}

async function banOrUnban(name: 'ban' | 'unban', argv: string[]): Promise<void> {
  await runCommand(name, BAN_USAGE, async () => {
    // The player comes first (a positional); the flags after it.
    const player = argv[0]?.startsWith('-') ? undefined : argv[0];
    const rest = player === undefined ? argv : argv.slice(1);
    const values = parseFlags(rest, { ...connectionFlags, ...(name === 'ban' ? { reason: { type: 'string' } } : {}) }) as {
      relay?: string;
      as?: string;
      reason?: string;
      help?: boolean;
    };
    if (values.help) return void console.log(BAN_USAGE);
    if (!player) throw new ConfigError('argv', 'invalid', `the player to ${name} is required: quest-points ${name} PLAYER`);
    const { base, headers } = await connection(values);
    const response =
      name === 'ban'
        ? await fetch(`${base}/admin/bans`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ player, ...(values.reason !== undefined ? { reason: values.reason } : {}) }),
          })
        : await fetch(`${base}/admin/bans/${encodeURIComponent(player)}`, { method: 'DELETE', headers });
    if (!response.ok) await refused(response);
    console.log(await response.text());
  });
}
