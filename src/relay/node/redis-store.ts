import { ConfigError } from '../../kit/errors.js';
import type { CounterStore } from '../counter-store.js';
import type { IdempotencyRecordStore } from '../records.js';
import { importPeer } from './peer.js';

// One round trip, atomic: the first hit of a window sets its expiry; a key that somehow lost its expiry gets
// one again (it would otherwise count forever). Leaves `count` and `ttl` (ms until the window ends) in Lua locals.
const COUNT_HIT = `local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end`;

type ScriptParser = { pushKey(key: string): void; push(value: string): void };
const windowArg = (windowMs: number) => String(Math.max(1, Math.ceil(windowMs)));

/** One hit: [hits so far, ms until the window ends]. */
const HIT_SCRIPT = {
  NUMBER_OF_KEYS: 1,
  SCRIPT: `${COUNT_HIT}
return { count, ttl }`,
  parseCommand(parser: ScriptParser, key: string, windowMs: number) {
    parser.pushKey(key);
    parser.push(windowArg(windowMs));
  },
  transformReply: undefined as unknown as () => [number, number],
};

// The same hit and, in the same round trip, the values of the idempotency record's keys (KEYS[2..]): a single award's
// per-player count and its record lookup cost one command instead of a script and an MGET. [hits, ms, value...].
const HIT_AND_GET_SCRIPT = {
  SCRIPT: `${COUNT_HIT}
local answer = { count, ttl }
for i = 2, #KEYS do
  answer[i + 1] = redis.call('GET', KEYS[i]) or false
end
return answer`,
  parseCommand(parser: ScriptParser, key: string, windowMs: number, keys: readonly string[]) {
    parser.push(String(1 + keys.length));
    parser.pushKey(key);
    for (const k of keys) parser.pushKey(k);
    parser.push(windowArg(windowMs));
  },
  transformReply: undefined as unknown as () => (number | string | null)[],
};

/** The few calls the store makes on a node-redis client (typed here: `redis` is an optional peer). */
interface HitClient {
  hit(key: string, windowMs: number): Promise<[number, number]>;
  hitAndGet(key: string, windowMs: number, keys: readonly string[]): Promise<(number | string | null)[]>;
  sendCommand(args: string[]): Promise<unknown>;
  ping(): Promise<unknown>;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
  isReady: boolean;
  isOpen: boolean;
}

/** Options of createRedisCounterStore. */
export interface RedisCounterStoreOptions {
  /** redis://[user:pass@]host:port[/db] or rediss://; default process.env.QP_REDIS_URL. */
  url?: string;
  /** Prefix for every key, e.g. one per game on a shared Redis; default none (keys are `qp:rl:...`). */
  prefix?: string;
  /** A command not answered within this fails (the relay then applies onStoreError); default 500 ms. */
  commandTimeoutMs?: number;
  /** Connection problems, at most one line per reconnect attempt; default a warning on stderr. */
  onConnectionError?: (message: string) => void;
}

/** The counter store on Redis, and the idempotency record on the same connection. */
export interface RedisCounterStore extends CounterStore {
  /**
   * The relay's idempotency record in the same Redis, on the same connection: a lookup issued beside the limiter's
   * script goes out in the same write (node-redis pipelines the commands of one tick). startRelay uses it.
   */
  records: IdempotencyRecordStore;
}

/**
 * A CounterStore on Redis (node-redis, an optional peer dependency: `npm install redis`; runs on Node, Bun and
 * Deno): every relay instance pointed at the same Redis shares one counter per key. Connects in the background and
 * reconnects forever with backoff; while Redis is away, increment() fails at once (no offline queue) and the relay
 * applies its `onStoreError` ('open' or 'closed').
 */
export async function createRedisCounterStore(options: RedisCounterStoreOptions = {}): Promise<RedisCounterStore> {
  const url = options.url ?? globalThis.process?.env?.QP_REDIS_URL;
  if (!url) throw new ConfigError('redis', 'missing', 'Redis URL is required: pass `url` or set QP_REDIS_URL');
  if (!/^rediss?:\/\//.test(url)) throw new ConfigError('redis', 'invalid', 'Redis URL must start with redis:// or rediss://');
  const { createClient, defineScript } = await importPeer('redis', () => import('redis'), 'Sharing rate limits in Redis (--redis, QP_REDIS_URL)');
  const prefix = options.prefix ?? '';
  const report = options.onConnectionError ?? ((message: string) => console.error(`quest-points relay: ${message}`));
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
    commandOptions: { timeout: options.commandTimeoutMs ?? 500 },
    scripts: { hit: defineScript(HIT_SCRIPT), hitAndGet: defineScript(HIT_AND_GET_SCRIPT) },
  }) as unknown as HitClient;
  // An 'error' event without a listener would crash the process; the URL may carry a password, never print it.
  let lastReport = '';
  client.on('error', (error: Error) => {
    const message = `Redis counter store: ${redisErrorCode(error)}`;
    if (message !== lastReport) report(message);
    lastReport = message;
  });
  client.on('ready', () => {
    if (lastReport) report('Redis counter store: connected again');
    lastReport = '';
  });
  // Resolves only once connected (it keeps retrying); the error listener above reports why it is not.
  let everConnected = false;
  const firstConnection = client.connect().then(
    () => {
      everConnected = true;
    },
    () => undefined,
  );
  const timeoutMs = options.commandTimeoutMs ?? 500;
  // Commands that arrive while the first connection is being made wait for it (bounded); after that, a lost
  // connection fails at once so an outage never slows every request down.
  const connected = async () => {
    if (!everConnected) await Promise.race([firstConnection, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref?.())]);
  };

  return {
    records: {
      async get(keys) {
        await connected();
        const values = (await client.sendCommand(['MGET', ...keys.map((key) => prefix + key)])) as (string | null)[];
        return values.map((value) => value ?? undefined);
      },
      async getWithHit(keys, counter, windowMs) {
        await connected();
        const [count, ttl, ...values] = await client.hitAndGet(
          prefix + counter,
          windowMs,
          keys.map((key) => prefix + key),
        );
        return {
          hit: { count: Number(count), resetInMs: Math.max(0, Number(ttl)) },
          records: keys.map((_, i) => (typeof values[i] === 'string' ? (values[i] as string) : undefined)),
        };
      },
      async set(entries, ttlMs) {
        await connected();
        // Issued together: one write, one round trip.
        await Promise.all(entries.map(([key, record]) => client.sendCommand(['SET', prefix + key, record, 'PX', String(Math.ceil(ttlMs))])));
      },
    },
    async increment(key, windowMs) {
      await connected();
      const [count, ttl] = await client.hit(prefix + key, windowMs);
      return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
    },
    async ready() {
      if (!client.isReady) throw new Error('Redis is not connected');
      await client.ping();
    },
    async close() {
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
