import { parseArgs } from 'node:util';
import { DEFAULT_HOST, DEFAULT_PORT, startRelay } from './server.js';
import { DEFAULT_TOKEN_TTL, signPlayerToken } from './token.js';

const RELAY_USAGE = `usage: quest-points relay [--host ${DEFAULT_HOST}] [--port ${DEFAULT_PORT}] --upstream URL [--policy FILE]
                          [--cors-origin ORIGIN]... [--trust-proxy HOPS]

Secrets come from the environment only:
  QP_API_KEY        the Quest Points Service API key (required)
  QP_RELAY_SECRET   HS256 secret for player tokens, at least 32 characters (required)
  QP_UPSTREAM_URL   used when --upstream is not given

--port 0 picks a free port. Prints "listening on http://HOST:PORT" once ready; logs are JSON lines on stderr.`;

const TOKEN_USAGE = `usage: quest-points token --sub ID [--role player|admin] [--ttl ${DEFAULT_TOKEN_TTL}] [--quest ID]...
                          [--email E] [--wallet CHAIN:ADDRESS]

Prints a player token signed with QP_RELAY_SECRET (HS256). --ttl: 30s, 15m, 2h, 7d or seconds.
--wallet splits at the last ":" (eip155:1:0xabc... -> chain eip155:1).`;

class UsageError extends Error {}

function parse<T extends NonNullable<Parameters<typeof parseArgs>[0]>['options']>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${usage}`);
  }
}

async function run(usage: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    // Messages here never carry a secret: they are built from names and rules, not from values.
    console.error(`quest-points: ${(error as Error).message}${error instanceof UsageError ? '' : `\n\n${usage}`}`);
    process.exit(2);
  }
}

export async function relayCommand(argv: string[]): Promise<void> {
  await run(RELAY_USAGE, async () => {
    const values = parse(
      argv,
      {
        host: { type: 'string', default: DEFAULT_HOST },
        port: { type: 'string', default: String(DEFAULT_PORT) },
        upstream: { type: 'string' },
        policy: { type: 'string' },
        'cors-origin': { type: 'string', multiple: true },
        'trust-proxy': { type: 'string' },
      },
      RELAY_USAGE,
    );
    if (values.help) return void console.log(RELAY_USAGE);
    const port = Number(values.port);
    if (!/^\d{1,5}$/.test(String(values.port)) || port > 65535) throw new UsageError(`--port must be 0-65535\n\n${RELAY_USAGE}`);
    const env = process.env;
    if (!env.QP_API_KEY) throw new Error('QP_API_KEY is not set: the relay needs the service API key in its environment');
    if (!env.QP_RELAY_SECRET) throw new Error('QP_RELAY_SECRET is not set: the relay needs a token secret in its environment');
    const upstreamUrl = (values.upstream as string | undefined) ?? env.QP_UPSTREAM_URL;
    if (!upstreamUrl) throw new UsageError(`--upstream URL (or QP_UPSTREAM_URL) is required\n\n${RELAY_USAGE}`);
    const trust = values['trust-proxy'] as string | undefined;
    const relay = await startRelay({
      host: values.host as string,
      port,
      upstream: { url: upstreamUrl, apiKey: env.QP_API_KEY },
      secret: env.QP_RELAY_SECRET,
      ...(values.policy ? { policy: values.policy as string } : {}),
      corsOrigins: (values['cors-origin'] as string[] | undefined) ?? [],
      ...(trust !== undefined ? { trustProxy: Number(trust) } : {}),
    });
    console.log(`listening on ${relay.url}`);
    const stop = () => void relay.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export async function tokenCommand(argv: string[]): Promise<void> {
  await run(TOKEN_USAGE, async () => {
    const values = parse(
      argv,
      {
        sub: { type: 'string' },
        role: { type: 'string', default: 'player' },
        ttl: { type: 'string', default: DEFAULT_TOKEN_TTL },
        quest: { type: 'string', multiple: true },
        email: { type: 'string' },
        wallet: { type: 'string' },
      },
      TOKEN_USAGE,
    );
    if (values.help) return void console.log(TOKEN_USAGE);
    if (!values.sub) throw new UsageError(`--sub is required\n\n${TOKEN_USAGE}`);
    const secret = process.env.QP_RELAY_SECRET;
    if (!secret) throw new Error('QP_RELAY_SECRET is not set: tokens are signed with the relay secret from the environment');
    const ttl = values.ttl as string;
    const token = await signPlayerToken(
      {
        sub: values.sub as string,
        role: values.role as 'player' | 'admin',
        ...(values.quest ? { quests: values.quest as string[] } : {}),
        ...(values.email ? { email: values.email as string } : {}),
        ...(values.wallet ? { wallet: parseWallet(values.wallet as string) } : {}),
      },
      { secret, ttl: /^\d+$/.test(ttl) ? Number(ttl) : ttl },
    );
    console.log(token);
  });
}

function parseWallet(value: string): { chain: string; address: string } {
  const at = value.lastIndexOf(':');
  if (at <= 0 || at === value.length - 1) throw new UsageError(`--wallet must be CHAIN:ADDRESS\n\n${TOKEN_USAGE}`);
  return { chain: value.slice(0, at), address: value.slice(at + 1) };
}
