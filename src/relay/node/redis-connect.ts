// The relay's one connection to Redis, a single server or a Redis Cluster (node-redis createClient or createCluster),
// behind the few calls the store makes. Which one is the URL's scheme: redis:// and rediss:// name one server,
// redis+cluster:// and rediss+cluster:// a cluster by one or more of its nodes (seeds: the client discovers the rest).
import { ConfigError } from '../../kit/errors.js';
import { importPeer } from './peer.js';

/** What a URL names: one server, or a cluster by its seed nodes (credentials and TLS apply to every node). */
export type RedisTarget = { cluster: false; url: string } | { cluster: true; rootUrls: string[]; username?: string; password?: string; tls: boolean };

/**
 * Reads `redis://`, `rediss://`, `redis+cluster://[user:pass@]host:port[,host:port...]` or `rediss+cluster://...`;
 * a ConfigError for anything else (the message never quotes the URL: it may carry a password).
 */
export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//.test(url)) return { cluster: false, url };
  const match = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/.exec(url);
  if (!match) {
    throw new ConfigError(
      'redis',
      'invalid',
      'Redis URL must start with redis:// or rediss:// (one server), or redis+cluster:// or rediss+cluster:// (a Redis Cluster)',
    );
  }
  const [, scheme, userinfo, hosts] = match as unknown as [string, string, string | undefined, string];
  const seeds = hosts.split(',').filter(Boolean);
  if (!seeds.length || seeds.some((seed) => !/^[^:,]+:\d+$/.test(seed) && !/^\[[^\]]+\]:\d+$/.test(seed))) {
    throw new ConfigError('redis', 'invalid', 'a redis+cluster:// URL lists its nodes as host:port, separated by commas');
  }
  const [user, pass] = userinfo === undefined ? [] : splitOnce(userinfo, ':');
  const credentials = userinfo === undefined ? '' : `${userinfo}@`;
  return {
    cluster: true,
    rootUrls: seeds.map((seed) => `${scheme}://${credentials}${seed}`),
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(pass !== undefined ? { password: decodeURIComponent(pass) } : {}),
    tls: scheme === 'rediss',
  };
}

const splitOnce = (text: string, separator: string): [string, string | undefined] => {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
};

/** The calls the store makes, the same on one server and on a cluster. */
export interface RedisConnection {
  /** A cluster: every key of one command must share a slot. */
  cluster: boolean;
  /** Runs the store's script `name` (its first key routes it on a cluster). */
  script<T>(name: string, args: unknown[]): Promise<T>;
  /** One command; `firstKey` routes it on a cluster. */
  send(firstKey: string, args: string[]): Promise<unknown>;
  /** Resolves once the first connection is made, or after the command timeout (a later outage fails at once). */
  connected(): Promise<void>;
  /** For /readyz: rejects when Redis cannot answer. */
  ready(): Promise<void>;
  /** Lets the connection go (waits for answers still due) and stops a first connection still being tried. */
  close(): Promise<void>;
}

/** Options of connectRedis. */
export interface ConnectOptions {
  /** A command not answered within this fails; also the longest a first command waits for the first connection. */
  commandTimeoutMs: number;
  /** One line per change of connection state, never the URL. */
  report: (message: string) => void;
  /** The store's scripts by name (node-redis script shapes: SCRIPT, parseCommand...; defineScript is applied here). */
  scripts: Record<string, { SCRIPT: string }>;
}

// Reconnects forever, backing off to 2 s; a lost node is looked up again (topology refresh) after 500 ms of trying, so
// a failed-over master's slots move to its promoted replica within a refresh of the failover itself.
const reconnectStrategy = (retries: number) => Math.min(100 * 2 ** retries, 2_000);
const TOPOLOGY_REFRESH_MS = 500;

type Client = {
  sendCommand(...args: unknown[]): Promise<unknown>;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
  isReady: boolean;
  isOpen: boolean;
} & Record<string, unknown>;

/**
 * Connects in the background and reconnects forever with backoff; while Redis (or a node) is away, a command fails at
 * once (no offline queue), so an outage never slows every request down.
 */
export async function connectRedis(url: string, options: ConnectOptions): Promise<RedisConnection> {
  const target = parseRedisUrl(url);
  const redis = await importPeer('redis', () => import('redis'), 'Sharing rate limits in Redis (--redis, QP_REDIS_URL)');
  const scripts = Object.fromEntries(Object.entries(options.scripts).map(([name, script]) => [name, redis.defineScript(script as never)]));
  const socket = { connectTimeout: 2_000, reconnectStrategy };
  const commandOptions = { timeout: options.commandTimeoutMs };
  const client = (target.cluster
    ? redis.createCluster({
        rootNodes: target.rootUrls.map((root) => ({ url: root })),
        defaults: {
          disableOfflineQueue: true,
          socket: target.tls ? { ...socket, tls: true } : socket,
          ...(target.username !== undefined ? { username: target.username } : {}),
          ...(target.password !== undefined ? { password: target.password } : {}),
        },
        commandOptions,
        topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
        scripts: scripts as never,
      })
    : redis.createClient({ url: target.url, disableOfflineQueue: true, socket, commandOptions, scripts: scripts as never })) as unknown as Client;

  // An 'error' event without a listener would crash the process; the URL may carry a password, never print it.
  let lastReport = '';
  const onError = (error: Error) => {
    const message = `Redis counter store: ${redisErrorCode(error)}`;
    if (message !== lastReport) options.report(message);
    lastReport = message;
  };
  const onReady = () => {
    if (lastReport) options.report('Redis counter store: connected again');
    lastReport = '';
  };
  client.on('error', onError);
  client.on(target.cluster ? 'node-error' : 'ready', (target.cluster ? onError : onReady) as never);
  if (target.cluster) client.on('node-ready', onReady);

  // Resolves only once connected: a cluster's first discovery is retried here (node-redis tries each seed once).
  let everConnected = false;
  let closed = false;
  const firstConnection = (async () => {
    for (let retries = 0; !closed; retries++) {
      try {
        await client.connect();
        everConnected = true;
        return;
      } catch {
        if (!target.cluster) return; // a single client keeps reconnecting by itself
        await new Promise((resolve) => setTimeout(resolve, reconnectStrategy(retries)).unref?.());
      }
    }
  })();

  return {
    cluster: target.cluster,
    script: (name, args) => (client[name] as (...a: unknown[]) => Promise<never>)(...args),
    send: (firstKey, args) => (target.cluster ? client.sendCommand(firstKey, false, args) : client.sendCommand(args)),
    async connected() {
      if (!everConnected) await Promise.race([firstConnection, new Promise((resolve) => setTimeout(resolve, options.commandTimeoutMs).unref?.())]);
    },
    async ready() {
      if (!client.isReady) throw new Error('Redis is not connected');
      await (target.cluster ? client.sendCommand(undefined, true, ['PING']) : client.sendCommand(['PING']));
    },
    async close() {
      closed = true;
      // close() waits for answers still due; destroy() is for a client that never got a connection.
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}

/** ECONNREFUSED, a timeout...: never the error's own text, which may quote the URL. */
function redisErrorCode(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
  return error.name === 'Error' ? 'connection error' : error.name;
}
