import { startEmulator } from '../../src/emulator/index.js';
import { startRelay, type LogRecord, type PlayerClaims, type RelayOptions, type RunningServer } from '../../src/relay/index.js';
import { API_KEY, caller, SECRET, token, type CallOptions } from './helpers.js';

/**
 * A real emulator and a real relay on 127.0.0.1 (port 0), wired over HTTP. Every relay response and
 * every relay log line is kept, with every token minted or sent, so a suite can scan them for secrets.
 */
export async function startLoopback(relayOptions: Partial<RelayOptions> = {}) {
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0, admin: true, apiKeys: [API_KEY] });
  const logs: LogRecord[] = [];
  const seen: string[] = [];
  const tokens: string[] = [];
  const relays: RunningServer[] = [];

  const relayOn = async (options: Partial<RelayOptions> = {}) => {
    const relay = await startRelay({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      upstream: { url: emulator.url, apiKey: API_KEY, retryDelayMs: 5 },
      logger: (record) => logs.push(record),
      ...relayOptions,
      ...options,
    });
    relays.push(relay);
    const call = caller(relay.url);
    return {
      url: relay.url,
      call: async (method: string, path: string, options: CallOptions = {}) => {
        if (options.token) tokens.push(options.token);
        const res = await call(method, path, options);
        seen.push(res.text, JSON.stringify([...res.headers]));
        return res;
      },
    };
  };

  const admin = caller(emulator.url);
  const direct = caller(emulator.url);
  return {
    emulator,
    logs,
    tokens,
    relay: await relayOn(),
    relayOn,
    mint: async (claims: PlayerClaims, ttl?: string | number) => {
      const minted = await token(claims, ttl);
      tokens.push(minted);
      return minted;
    },
    /** The service as the relay reaches it, with the API key: the reference answers. */
    direct: (method: string, path: string, options: CallOptions = {}) =>
      direct(method, path, { ...options, headers: { API_KEY, ...options.headers } }),
    /** Emulator admin: request log, faults, seed. */
    admin: async (method: string, path: string, body?: unknown) => (await admin(method, `/__emulator${path}`, body === undefined ? {} : { body })).json,
    requests: async () => (await admin('GET', '/__emulator/requests')).json.data as { method: string; path: string; status: number; idempotencyKey?: string }[],
    clearRequests: () => admin('DELETE', '/__emulator/requests'),
    /** Every relay response (body and headers) and log line, as text. */
    transcript: () => [...seen, ...logs.map((record) => JSON.stringify(record))],
    close: async () => {
      for (const relay of relays) await relay.close();
      await emulator.close();
    },
  };
}

export type Loopback = Awaited<ReturnType<typeof startLoopback>>;

/** Zero hits: the API key, the relay secret and every token of the suite, in every response and log line. */
export function secretHits(loopback: Loopback): string[] {
  const needles = [API_KEY, SECRET, ...loopback.tokens];
  return loopback.transcript().filter((line) => needles.some((needle) => line.includes(needle)));
}
