import type { LogRecord, PlayerClaims, StartRelayOptions } from '../../src/relay/node/index.js';
import { API_KEY, SECRET, token } from '../helpers/fixtures.js';
import { startStack } from '../helpers/stack.js';
import { caller, type CallOptions } from './helpers.js';

/**
 * A real emulator and a real relay on 127.0.0.1 (port 0), wired over HTTP. Every relay response and
 * every relay log line is kept, with every token minted or sent, so a suite can scan them for secrets.
 */
export async function startLoopback(relayOptions: Partial<StartRelayOptions> = {}) {
  const logs: LogRecord[] = [];
  const seen: string[] = [];
  const tokens: string[] = [];
  const stack = await startStack({
    relayOptions: { logger: (record) => logs.push(record), ...relayOptions, upstream: { retryDelayMs: 5, ...relayOptions.upstream } },
  });

  /** A relay's calls, each response kept for the transcript and each token sent for the secret scan. */
  const recorded = (url: string) => {
    const call = caller(url);
    return {
      url,
      call: async (method: string, path: string, options: CallOptions = {}) => {
        if (options.token) tokens.push(options.token);
        const res = await call(method, path, options);
        seen.push(res.text, JSON.stringify([...res.headers]));
        return res;
      },
    };
  };

  const admin = caller(stack.emulator.url);
  return {
    emulator: stack.emulator,
    logs,
    tokens,
    relay: recorded(stack.relay.url),
    /** Another relay on the same emulator, with more options (upstream merged). */
    relayOn: async (options: Partial<StartRelayOptions> = {}) => recorded((await stack.addRelay(options)).url),
    mint: async (claims: PlayerClaims, ttl?: string | number) => {
      const minted = await token(claims, ttl);
      tokens.push(minted);
      return minted;
    },
    /** The service as the relay reaches it, with the API key: the reference answers. */
    direct: (method: string, path: string, options: CallOptions = {}) =>
      admin(method, path, { ...options, headers: { API_KEY, ...options.headers } }),
    /** Emulator admin: faults, seed (resolves with the answer's data). */
    admin: stack.admin,
    requests: async () => (await stack.admin('GET', 'requests')) as { method: string; path: string; status: number; idempotencyKey?: string }[],
    clearRequests: () => stack.admin('DELETE', 'requests'),
    /** Every relay response (body and headers) and log line, as text. */
    transcript: () => [...seen, ...logs.map((record) => JSON.stringify(record))],
    close: stack.close,
  };
}

export type Loopback = Awaited<ReturnType<typeof startLoopback>>;

/** Zero hits: the API key, the relay secret and every token of the suite, in every response and log line. */
export function secretHits(loopback: Loopback): string[] {
  const needles = [API_KEY, SECRET, ...loopback.tokens];
  return loopback.transcript().filter((line) => needles.some((needle) => line.includes(needle)));
}
