import { ConfigError, parseFlags, parsePort, parsePositiveInteger, runCommand, stopOnSignals } from '../kit/index.js';
import type { ForwardedHeader } from './client-ip.js';
import type { StoreErrorBehaviour } from './rate-limit.js';
import { DEFAULT_UPSTREAM_CONNECTIONS, LOG_LEVELS, parseLogLevel } from './node/settings.js';
import { DEFAULT_HOST, DEFAULT_PORT, startRelay } from './node/server.js';
import { MISSING_KEY_SECRET } from './keys.js';
import { DEFAULT_TOKEN_CACHE_SIZE } from './token-cache.js';
import { DEFAULT_MAX_TOKEN_AGE_SECONDS, DEFAULT_TOKEN_TTL, signPlayerToken } from './token.js';

const RELAY_USAGE = `usage: quest-points relay [options]

  --host HOST                 address to bind (default ${DEFAULT_HOST})
  --port PORT                 port, 0 picks a free one (default ${DEFAULT_PORT})
  --upstream URL              the Quest Points Service (or QP_UPSTREAM_URL)
  --upstream-connections N    keep-alive connections to it at once (default ${DEFAULT_UPSTREAM_CONNECTIONS}; QP_UPSTREAM_CONNECTIONS)
  --policy FILE               the award policy, JSON
  --cors-origin ORIGIN        a browser origin allowed to call; repeat for more
  --trust-proxy HOPS          proxies of yours in front; their forwarded header gives the client IP (QP_TRUST_PROXY)
  --forwarded-header NAME     x-forwarded-for (default) or forwarded (QP_FORWARDED_HEADER)
  --redis URL                 share rate limits between instances in Redis (or QP_REDIS_URL; npm install redis):
                              redis://host:6379 (one server), redis+cluster://host1:6379,host2:6379 (a Redis Cluster;
                              rediss:// and rediss+cluster:// for TLS)
  --on-store-error MODE       Redis away: closed (default, 503) or open (allow) (QP_ON_STORE_ERROR)
  --idempotency-days N        with --redis, acknowledged awards are answered from a record this long (default 30; 0 = off; QP_IDEMPOTENCY_DAYS)
  --ledger-days N             the ledger keeps every decision this long, in Redis with --redis, else in memory
                              (default 30; 0 = off; QP_LEDGER_DAYS); read it with quest-points ledger export
  --webhook-url URL           POST each acknowledged award and reversal to this endpoint, signed with QP_WEBHOOK_SECRET
                              (Standard Webhooks); repeat for more (or QP_WEBHOOK_URL, one)
  --max-token-age SECONDS     longest player-token lifetime accepted (default ${DEFAULT_MAX_TOKEN_AGE_SECONDS}; QP_MAX_TOKEN_AGE)
  --token-cache-size N        verified tokens remembered, 0 = off (default ${DEFAULT_TOKEN_CACHE_SIZE}; QP_TOKEN_CACHE_SIZE)
  --jwks-url URL              also accept tokens of your identity provider, verified by its JWKS (QP_JWKS_URL)
  --jwt-issuer ISS            their required iss (QP_JWT_ISSUER; required with --jwks-url)
  --jwt-audience AUD          their required aud, comma-separated for several (QP_JWT_AUDIENCE; required with --jwks-url)
  --headers-timeout MS        request head must arrive within (default 10000; QP_HEADERS_TIMEOUT_MS)
  --request-timeout MS        whole request must arrive within (default 30000; QP_REQUEST_TIMEOUT_MS)
  --max-connections N         open connections at once (default 4096; QP_MAX_CONNECTIONS)
  --deadline MS               an award request is answered within (default 8000, below the SDK's 10 s; QP_DEADLINE_MS)
  --shutdown-grace MS         on SIGTERM/SIGINT, in-flight requests get this long (default 10000; QP_SHUTDOWN_GRACE_MS)
  --log-level LEVEL           ${LOG_LEVELS.join('|')} (default info: a line per request; QP_LOG_LEVEL)
  --drain-delay MS            on SIGTERM/SIGINT, /readyz says 503 and requests are still served this long before
                              the relay stops accepting connections (default 0; QP_DRAIN_DELAY_MS)
  -h, --help                  show this help

Secrets come from the environment only:
  QP_API_KEY                the Quest Points Service API key (required)
  QP_KEY_SECRET             names upstream idempotency keys, at least 32 characters; never rotate it (required;
                            upgrading: set it to your current QP_RELAY_SECRET to keep every upstream key)
  QP_RELAY_SECRET           HS256 secret that signs player tokens, at least 32 characters (required without --jwks-url)
  QP_RELAY_SECRET_PREVIOUS  the secret before a rotation: its tokens are still accepted until you unset it
  QP_METRICS_TOKEN          when set, GET /metrics needs "Authorization: Bearer <it>"
  QP_WEBHOOK_SECRET         signs the webhooks of --webhook-url: whsec_ + base64 of 24 to 64 random bytes

Prints "listening on http://HOST:PORT" once ready; logs are JSON lines on stderr.
GET /healthz, /readyz and /metrics are for your probes and Prometheus (/metrics needs: npm install prom-client).`;

const TOKEN_USAGE = `usage: quest-points token --sub ID [--role player|admin] [--ttl ${DEFAULT_TOKEN_TTL}] [--quest ID]...
                          [--email E] [--wallet CHAIN:ADDRESS] [--max-token-age SECONDS]

Prints a player token signed with QP_RELAY_SECRET (HS256; the current secret, never QP_RELAY_SECRET_PREVIOUS). --ttl: 30s, 15m, 1h or seconds, at most the relay's
--max-token-age (default ${DEFAULT_MAX_TOKEN_AGE_SECONDS} s; QP_MAX_TOKEN_AGE). --wallet splits at the last ":"
(eip155:1:0xabc... -> chain eip155:1).`;

const oneOf = <T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined => {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  throw new ConfigError(flag, 'invalid', `${flag} must be ${allowed.join(' or ')}, got "${value}"`);
};

export async function relayCommand(argv: string[]): Promise<void> {
  await runCommand('relay', RELAY_USAGE, async () => {
    const values = parseFlags(argv, {
      host: { type: 'string', default: DEFAULT_HOST },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      upstream: { type: 'string' },
      'upstream-connections': { type: 'string' },
      policy: { type: 'string' },
      'cors-origin': { type: 'string', multiple: true },
      'trust-proxy': { type: 'string' },
      'forwarded-header': { type: 'string' },
      redis: { type: 'string' },
      'on-store-error': { type: 'string' },
      'idempotency-days': { type: 'string' },
      'ledger-days': { type: 'string' },
      'max-token-age': { type: 'string' },
      'token-cache-size': { type: 'string' },
      'jwks-url': { type: 'string' },
      'jwt-issuer': { type: 'string' },
      'jwt-audience': { type: 'string' },
      'headers-timeout': { type: 'string' },
      'request-timeout': { type: 'string' },
      'max-connections': { type: 'string' },
      deadline: { type: 'string' },
      'shutdown-grace': { type: 'string' },
      'log-level': { type: 'string' },
      'drain-delay': { type: 'string' },
      'webhook-url': { type: 'string', multiple: true },
    });
    if (values.help) return void console.log(RELAY_USAGE);
    const env = process.env;
    const port = parsePort(values.port);
    if (!env.QP_API_KEY)
      throw new ConfigError('QP_API_KEY', 'missing', 'QP_API_KEY is not set: the relay needs the service API key in its environment');
    if (!env.QP_KEY_SECRET) throw new ConfigError('QP_KEY_SECRET', 'missing', MISSING_KEY_SECRET);
    const jwksUrl = values['jwks-url'] ?? env.QP_JWKS_URL;
    if (!env.QP_RELAY_SECRET && !jwksUrl) {
      throw new ConfigError(
        'QP_RELAY_SECRET',
        'missing',
        'QP_RELAY_SECRET is not set: the relay needs a token secret in its environment (or --jwks-url)',
      );
    }
    const audience = (values['jwt-audience'] ?? env.QP_JWT_AUDIENCE ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const jwks = jwksUrl ? { url: jwksUrl, issuer: values['jwt-issuer'] ?? env.QP_JWT_ISSUER ?? '', audience } : undefined;
    const tokenCacheSize = values['token-cache-size'] ?? env.QP_TOKEN_CACHE_SIZE;
    if (tokenCacheSize !== undefined && !/^\d{1,9}$/.test(tokenCacheSize)) {
      throw new ConfigError(
        '--token-cache-size',
        'invalid',
        `--token-cache-size must be a whole number (0 turns the cache off), got "${tokenCacheSize}"`,
      );
    }
    const upstreamUrl = values.upstream ?? env.QP_UPSTREAM_URL;
    if (!upstreamUrl) throw new ConfigError('--upstream', 'missing', '--upstream URL (or QP_UPSTREAM_URL) is required');
    type NumberFlag =
      | 'max-token-age'
      | 'headers-timeout'
      | 'request-timeout'
      | 'max-connections'
      | 'deadline'
      | 'shutdown-grace'
      | 'upstream-connections'
      | 'drain-delay';
    const number = (flag: NumberFlag, variable: string) => parsePositiveInteger(values[flag] ?? env[variable], `--${flag}`);
    const trustProxy = parsePositiveInteger(values['trust-proxy'] ?? env.QP_TRUST_PROXY, '--trust-proxy');
    const forwardedHeader = oneOf<ForwardedHeader>(
      values['forwarded-header'] ?? env.QP_FORWARDED_HEADER,
      ['x-forwarded-for', 'forwarded'],
      '--forwarded-header',
    );
    const onStoreError = oneOf<StoreErrorBehaviour>(values['on-store-error'] ?? env.QP_ON_STORE_ERROR, ['closed', 'open'], '--on-store-error');
    const redis = values.redis ?? env.QP_REDIS_URL;
    const recordDays = values['idempotency-days'] ?? env.QP_IDEMPOTENCY_DAYS;
    if (recordDays !== undefined && !/^\d+$/.test(recordDays)) {
      throw new ConfigError('--idempotency-days', 'invalid', `--idempotency-days must be a whole number of days (0: off), got "${recordDays}"`);
    }
    const idempotency =
      recordDays === undefined ? {} : recordDays === '0' ? { idempotency: false as const } : { idempotencyTtlMs: Number(recordDays) * 86_400_000 };
    const ledgerDays = values['ledger-days'] ?? env.QP_LEDGER_DAYS;
    if (ledgerDays !== undefined && !/^\d{1,5}$/.test(ledgerDays)) {
      throw new ConfigError('--ledger-days', 'invalid', `--ledger-days must be a whole number of days (0: off), got "${ledgerDays}"`);
    }
    const ledger =
      ledgerDays === undefined ? {} : ledgerDays === '0' ? { ledger: false as const } : { ledgerRetentionMs: Number(ledgerDays) * 86_400_000 };
    const logLevel = parseLogLevel(values['log-level'] ?? env.QP_LOG_LEVEL, '--log-level');
    const webhookUrls = values['webhook-url'] ?? (env.QP_WEBHOOK_URL ? [env.QP_WEBHOOK_URL] : []);
    const webhookSecret = env.QP_WEBHOOK_SECRET;
    if (webhookUrls.length > 0 && !webhookSecret) {
      throw new ConfigError('QP_WEBHOOK_SECRET', 'missing', 'QP_WEBHOOK_SECRET is not set: --webhook-url needs the secret that signs its webhooks');
    }
    const relay = await startRelay({
      host: values.host,
      port,
      upstream: { url: upstreamUrl, apiKey: env.QP_API_KEY },
      keySecret: env.QP_KEY_SECRET,
      // Without QP_RELAY_SECRET (JWKS only) no HS256 token is accepted.
      ...(env.QP_RELAY_SECRET ? { secret: [env.QP_RELAY_SECRET, env.QP_RELAY_SECRET_PREVIOUS].filter((s): s is string => Boolean(s)) } : {}),
      ...(jwks ? { jwks } : {}),
      ...(tokenCacheSize !== undefined ? { tokenCacheSize: Number(tokenCacheSize) } : {}),
      ...(values.policy ? { policy: values.policy } : {}),
      corsOrigins: values['cors-origin'] ?? [],
      ...(trustProxy !== undefined ? { trustProxy } : {}),
      ...(forwardedHeader ? { forwardedHeader } : {}),
      ...(redis ? { redis } : {}),
      ...idempotency,
      ...ledger,
      ...(onStoreError ? { onStoreError } : {}),
      ...(env.QP_METRICS_TOKEN ? { metricsToken: env.QP_METRICS_TOKEN } : {}),
      maxTokenAgeSeconds: number('max-token-age', 'QP_MAX_TOKEN_AGE'),
      headersTimeoutMs: number('headers-timeout', 'QP_HEADERS_TIMEOUT_MS'),
      requestTimeoutMs: number('request-timeout', 'QP_REQUEST_TIMEOUT_MS'),
      maxConnections: number('max-connections', 'QP_MAX_CONNECTIONS'),
      deadlineMs: number('deadline', 'QP_DEADLINE_MS'),
      shutdownGraceMs: number('shutdown-grace', 'QP_SHUTDOWN_GRACE_MS'),
      upstreamConnections: number('upstream-connections', 'QP_UPSTREAM_CONNECTIONS'),
      ...(logLevel ? { logLevel } : {}),
      drainDelayMs: number('drain-delay', 'QP_DRAIN_DELAY_MS'),
      ...(webhookSecret && webhookUrls.length > 0 ? { webhooks: { endpoints: webhookUrls.map((url) => ({ url, secret: webhookSecret })) } } : {}),
    });
    console.log(`listening on ${relay.url}`);
    // In-flight requests finish, then the process exits 0 (a second signal is ignored while they do).
    stopOnSignals(() => relay.close(), 'relay');
  });
}

export async function tokenCommand(argv: string[]): Promise<void> {
  await runCommand('token', TOKEN_USAGE, async () => {
    const values = parseFlags(argv, {
      sub: { type: 'string' },
      role: { type: 'string', default: 'player' },
      ttl: { type: 'string', default: DEFAULT_TOKEN_TTL },
      quest: { type: 'string', multiple: true },
      email: { type: 'string' },
      wallet: { type: 'string' },
      'max-token-age': { type: 'string' },
    });
    if (values.help) return void console.log(TOKEN_USAGE);
    if (!values.sub) throw new ConfigError('--sub', 'missing', '--sub is required');
    const secret = process.env.QP_RELAY_SECRET;
    if (!secret)
      throw new ConfigError('QP_RELAY_SECRET', 'missing', 'QP_RELAY_SECRET is not set: tokens are signed with the relay secret from the environment');
    const ttl = values.ttl;
    const role = oneOf(values.role, ['player', 'admin'] as const, '--role') ?? 'player';
    const maxTokenAgeSeconds = parsePositiveInteger(values['max-token-age'] ?? process.env.QP_MAX_TOKEN_AGE, '--max-token-age');
    let token: string;
    try {
      token = await signPlayerToken(
        {
          sub: values.sub,
          role,
          ...(values.quest ? { quests: values.quest } : {}),
          ...(values.email ? { email: values.email } : {}),
          ...(values.wallet ? { wallet: parseWallet(values.wallet) } : {}),
        },
        { secret, ttl: /^-?\d+$/.test(ttl) ? Number(ttl) : ttl, ...(maxTokenAgeSeconds ? { maxTokenAgeSeconds } : {}) },
      );
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError('--ttl', 'invalid', (error as Error).message.replace(/^ttl /, '--ttl '));
    }
    console.log(token);
  });
}

function parseWallet(value: string): { chain: string; address: string } {
  const at = value.lastIndexOf(':');
  if (at <= 0 || at === value.length - 1) throw new ConfigError('--wallet', 'invalid', '--wallet must be CHAIN:ADDRESS');
  return { chain: value.slice(0, at), address: value.slice(at + 1) };
}
