// Two relays on one Redis in front of one emulator, all on real sockets: what "shared across relays" and "atomic"
// are tested against (the economy's rules, the red team). The stack's own helpers (tokens, the service, the
// emulator's admin) come with it.
import type { RelayPolicy, RunningServer, StartRelayOptions } from '../../src/relay/node/index.js';
import { startRedis, type TestRedis } from './redis.js';
import { startStack, type ServedStack } from './stack.js';

export interface RelayPair extends Omit<ServedStack, 'close'> {
  redis: TestRedis;
  /** Both relays, the stack's first. */
  relays: [RunningServer, RunningServer];
  /** Their base URLs, in the same order. */
  urls: [string, string];
  /** Stops both relays, the emulator and the Redis server. */
  close(): Promise<void>;
}

/** Start a redis-server, an emulator and two relays sharing that Redis with this policy (and more relay options). */
export async function startRelayPair(policy: RelayPolicy, more: Partial<StartRelayOptions> = {}): Promise<RelayPair> {
  const redis = await startRedis();
  let stack: ServedStack | undefined;
  try {
    stack = await startStack({ policy, relayOptions: { redis: redis.url, ...more } });
    const second = await stack.addRelay();
    const first = stack.relay;
    const served = stack;
    // The stack as the prototype: its getters (relay) stay live, only close() is replaced.
    return Object.assign(Object.create(served) as ServedStack, {
      redis,
      relays: [first, second] as [RunningServer, RunningServer],
      urls: [first.url, second.url] as [string, string],
      async close() {
        await served.close();
        await redis.stop();
      },
    });
  } catch (error) {
    await stack?.close();
    await redis.stop();
    throw error;
  }
}
