// The emulator + relay stack every test builds on, in two forms: served on 127.0.0.1 (real HTTP, port 0) and
// in-process (each face's Web-standard app.fetch, the relay's upstream fetch wired to the emulator's).
import {
  buildEmulator,
  startEmulator,
  type EmulatorOptions,
  type EmulatorState,
  type FaultConfig,
  type RequestLogEntry,
  type RunningEmulator,
} from '../../src/emulator/index.js';
import {
  createRelay,
  signPlayerToken,
  startRelay,
  type PlayerClaims,
  type RelayOptions,
  type RelayPolicy,
  type RunningServer,
  type StartRelayOptions,
} from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET } from './fixtures.js';

export interface StackOptions<R extends RelayOptions = RelayOptions> {
  /** The relay's policy; default OPEN_POLICY. */
  policy?: RelayPolicy;
  /** The emulator's initial fault injection; default none. */
  faults?: FaultConfig;
  /** More emulator options (admin routes are on, the API key is the fixtures' one). */
  emulatorOptions?: EmulatorOptions;
  /** More relay options; `upstream` is merged into the wiring to the emulator. */
  relayOptions?: Partial<R>;
}

type Fetch = (request: Request) => Response | Promise<Response>;

/** The data a GET of an admin route answers with, by its path (leading slash or not); other calls: unknown. */
type AdminData<M extends string, P extends string> = M extends 'GET'
  ? P extends 'state' | '/state'
    ? EmulatorState
    : P extends 'requests' | '/requests'
      ? RequestLogEntry[]
      : P extends 'faults' | '/faults'
        ? FaultConfig
        : unknown
  : unknown;

/** What both forms share: emulator admin, the service as the relay reaches it, and player tokens. */
function common(emulatorFetch: Fetch, base: string) {
  const send = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers = new Headers(init.headers);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return emulatorFetch(new Request(base + path, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }));
  };
  /** Emulator admin (/__emulator/<path>): resolves with the answer's data, throws on a refusal. */
  async function admin<M extends string, P extends string>(method: M, path: P, body?: unknown): Promise<AdminData<M, P>> {
    const answer = (await (await send(method, `/__emulator/${path.replace(/^\//, '')}`, { body })).json()) as {
      success: boolean;
      data?: unknown;
      message?: string;
    };
    if (!answer.success) throw new Error(`emulator ${method} ${path}: ${answer.message}`);
    return answer.data as AdminData<M, P>;
  }
  return {
    admin,
    setFaults: async (faults: FaultConfig) => void (await admin('PUT', 'faults', faults)),
    /** A service request with the API key, as the relay sends it: the reference answer. */
    service: (method: string, path: string, body?: unknown) => send(method, path, { body, headers: { API_KEY } }),
    /** The points the service holds for a player in a quest: what was applied, whatever the relays answered. */
    async appliedPoints(questId: string, serviceUserId: string): Promise<number> {
      const answer = await send('GET', `/group-quests/${encodeURIComponent(questId)}/points/${encodeURIComponent(serviceUserId)}`, {
        headers: { API_KEY },
      });
      return ((await answer.json()) as { data: { totalPoints: number } }).data.totalPoints;
    },
    /** A token for player `sub` (more claims and the signing options optional), signed with the fixtures' secret. */
    token: (sub: string, claims: Omit<PlayerClaims, 'sub'> = {}, options: { ttl?: string | number; maxTokenAgeSeconds?: number } = {}) =>
      signPlayerToken({ sub, ...claims }, { secret: SECRET, ttl: '5m', ...options }),
  };
}

const relayDefaults = (options: StackOptions) => ({ secret: SECRET, keySecret: KEY_SECRET, policy: options.policy ?? OPEN_POLICY, logger: () => {} });
const emulatorDefaults = (options: StackOptions): EmulatorOptions => ({
  admin: true,
  apiKeys: [API_KEY],
  ...(options.faults ? { faults: options.faults } : {}),
  ...options.emulatorOptions,
});

/** Emulator and relay served on 127.0.0.1 (port 0): what a browser or another process reaches. */
export async function startStack(options: StackOptions<StartRelayOptions> = {}) {
  const emulator: RunningEmulator = await startEmulator({ host: '127.0.0.1', port: 0, ...emulatorDefaults(options) });
  const relayOptions: Partial<StartRelayOptions> = { ...options.relayOptions };
  const settings = (more: Partial<StartRelayOptions>): StartRelayOptions => ({
    host: '127.0.0.1',
    port: 0,
    ...relayDefaults(options),
    ...relayOptions,
    ...more,
    upstream: { url: emulator.url, apiKey: API_KEY, ...relayOptions.upstream, ...more.upstream },
  });
  let relay: RunningServer | undefined = await startRelay(settings({}));
  const others: RunningServer[] = [];
  return {
    emulator,
    /** The stack's relay (replaced by restartRelay; throws while it is down). */
    get relay(): RunningServer {
      if (!relay) throw new Error('the relay is down');
      return relay;
    },
    relayUp: () => relay !== undefined,
    /** Another relay in front of the same emulator, with more options; closed with the stack. */
    async addRelay(more: Partial<StartRelayOptions> = {}) {
      const another = await startRelay(settings(more));
      others.push(another);
      return another;
    },
    /**
     * Stops the relay (in-flight requests are cut after its grace) and starts it again on the same port after `downMs`,
     * with `more` options from then on (a token-secret rotation: `{ secret: [next, previous] }`).
     */
    async restartRelay(downMs = 0, more: Partial<StartRelayOptions> = {}) {
      const running = relay;
      if (!running) throw new Error('the relay is already down');
      relay = undefined;
      await running.close();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      Object.assign(relayOptions, more);
      relay = await startRelay(settings({ port: running.port }));
    },
    ...common((request) => fetch(request), emulator.url),
    async close() {
      for (const other of others.splice(0)) await other.close();
      await relay?.close();
      await emulator.close();
    },
  };
}

export type ServedStack = Awaited<ReturnType<typeof startStack>>;

const SERVICE = 'http://service.test';

/** Emulator and relay in-process: faults, state and clock under the test's hand, no sockets. */
export function inProcessStack(options: StackOptions = {}) {
  const emulator = buildEmulator(emulatorDefaults(options));
  const emulatorFetch: Fetch = (request) => emulator.app.fetch(request);
  const { relayOptions = {} } = options;
  /** Another relay in front of the same emulator, with more options. */
  const relayOn = (more: Partial<RelayOptions> = {}) =>
    createRelay({
      ...relayDefaults(options),
      ...relayOptions,
      ...more,
      upstream: { url: SERVICE, apiKey: API_KEY, fetch: async (request) => emulatorFetch(request), ...relayOptions.upstream, ...more.upstream },
    });
  return { emulator, relay: relayOn(), relayOn, ...common(emulatorFetch, SERVICE) };
}

export type InProcessStack = ReturnType<typeof inProcessStack>;
