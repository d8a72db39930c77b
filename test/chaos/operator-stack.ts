// The chaos stack as an operator deploys it: the emulator (the service), N relay processes from the CLI on one
// redis-server, and the front's balancer over them. Player tokens are signed with the fleet's current secret, so
// after a rotation new tokens (the service worker's token URL) carry the new one while open tabs keep their old.
import type { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { startEmulator } from '../../src/emulator/index.js';
import { signPlayerToken, type RateLimitRule } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import type { Balancer } from './balancer.js';
import { startFleet, type Fleet, type GracefulExit, type RelayState } from './fleet.js';
import { watchWindows, type WindowWatcher } from './limits.js';
import { SLOTS } from './plan.js';
import { POLICY, QUEST, TOKEN_AGE_SECONDS, type InFlight, type Stack } from './stack.js';

/** The secret a rotation moves to (the fixtures' SECRET stays verifying as the previous one). */
export const ROTATED_SECRET = 'rotated-relay-secret-of-the-chaos-run-0123456789';

export interface OperatorOptions {
  /** Relay processes behind the balancer; default 2. */
  relays?: number;
  /** The shared per-player limit (Redis): default 40 awards per 2 s. */
  perPlayer?: RateLimitRule;
}

export interface OperatorControls {
  fleet: Fleet;
  perPlayer: RateLimitRule;
  windows: WindowWatcher;
  /** A rolling restart onto a new token secret, the old one kept as previous, the key secret unchanged. */
  rotateSecret(): Promise<GracefulExit[]>;
  rotations: number;
  /** Award requests, once the rotation was done, that carried a token signed with the secret it replaced. */
  oldTokenRequests: number;
}

interface FrontParts {
  origin: string;
  front: Server;
  balancer: Balancer;
  events: EventEmitter;
  live: Set<InFlight>;
  workerLog: string[];
  statuses: Map<number, number>;
  setToken(token: Stack['token']): void;
  setRelays(ports: () => number[], state: (port: number) => RelayState): void;
}

export async function operatorStack(options: OperatorOptions & FrontParts): Promise<Stack> {
  const perPlayer = options.perPlayer ?? { limit: 40, windowSeconds: 2 };
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0, admin: true, apiKeys: [API_KEY], requestLogSize: 5_000_000 });
  const fleet = await startFleet({
    relays: options.relays ?? 2,
    upstreamUrl: emulator.url,
    apiKey: API_KEY,
    policy: { ...POLICY, rateLimits: { perPlayer } },
    corsOrigins: [options.origin],
    maxTokenAgeSeconds: TOKEN_AGE_SECONDS,
    // The key secret never rotates: the upstream keys of awards sent before a rotation and resent after it match.
    config: { onStoreError: 'closed', secrets: [SECRET], keySecret: KEY_SECRET },
  });
  options.setRelays(fleet.ports, fleet.state);
  const windows = watchWindows(
    fleet.redisUrl,
    SLOTS.map((s) => s.user),
    perPlayer.windowSeconds * 1000,
  );

  async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${emulator.url}/__emulator/${path.replace(/^\//, '')}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const answer = (await response.json()) as { success: boolean; data?: unknown; message?: string };
    if (!answer.success) throw new Error(`emulator ${method} ${path}: ${answer.message}`);
    return answer.data;
  }
  /** Which secret signed each token handed out. */
  const signedWith = new Map<string, string>();
  const token: Stack['token'] = async (sub) => {
    const secret = fleet.config().secrets[0]!;
    const signed = await signPlayerToken({ sub, quests: [QUEST] }, { secret, ttl: TOKEN_AGE_SECONDS, maxTokenAgeSeconds: TOKEN_AGE_SECONDS });
    signedWith.set(signed, secret);
    return signed;
  };
  options.setToken(token);
  let rotatedAway: string | undefined;
  options.events.on('start', (entry: InFlight) => {
    if (rotatedAway && entry.token && signedWith.get(entry.token) === rotatedAway) controls.oldTokenRequests++;
  });

  const controls: OperatorControls = {
    fleet,
    perPlayer,
    windows,
    rotations: 0,
    oldTokenRequests: 0,
    async rotateSecret() {
      const current = fleet.config().secrets[0]!;
      const next = current === ROTATED_SECRET ? SECRET : ROTATED_SECRET;
      controls.rotations++;
      const exits = await fleet.rollingRestart({ secrets: [next, current] });
      rotatedAway = current;
      return exits;
    },
  };
  let next = 0;
  return {
    emulator,
    origin: options.origin,
    relayUp: () => fleet.ports().some((port) => fleet.state(port) === 'running'),
    // The browser chaos's relay restart, here a crash: one relay SIGKILLed, started again after downMs.
    restartRelay: (downMs) => fleet.crashRelay(next++, downMs),
    inFlight: () => [...options.live],
    events: options.events,
    workerLog: options.workerLog,
    statuses: options.statuses,
    balancer: options.balancer,
    operator: controls,
    admin,
    setFaults: async (faults) => void (await admin('PUT', 'faults', faults)),
    token,
    async close() {
      await options.balancer.stop();
      options.front.closeAllConnections();
      await new Promise((resolve) => options.front.close(resolve));
      await windows.stop();
      await fleet.close();
      await emulator.close();
    },
  };
}
