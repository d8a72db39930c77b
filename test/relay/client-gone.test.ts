// A client that leaves mid-body BEFORE the relay reads the body: the request must still end (a 400 access line, the
// in-flight gauge back down) on both of the relay's Node paths. The steps before the body are asynchronous (the per-IP
// count in the counter store, a token's first check), and on a loaded machine the client's leaving is often seen
// before the body reader starts: a reader that only listens for the request's 'close' then waits forever (the fast
// path's did until e36df3d). Here the per-IP count is held until the relay has seen the client go, so the order is
// the same on every run instead of one in a few hundred under load (fast-award-world.test.ts met it by chance).
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryCounterStore, type CounterStore, type LogRecord, type MetricsSink, type RelayPolicy } from '../../src/relay/index.js';
import { startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

const POLICY: RelayPolicy = {
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  rateLimits: { perPlayer: { limit: 100, windowSeconds: 3600 }, perIp: { limit: 1000, windowSeconds: 3600 } },
};

const relays: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

/** A counter store whose counts wait for open(); reached() resolves when the first count is asked for. */
function heldStore(): { store: CounterStore; reached: Promise<void>; open: () => void } {
  const memory = createMemoryCounterStore();
  let open!: () => void;
  let reach!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return {
    store: {
      increment: async (key, windowMs) => {
        reach();
        await gate;
        return memory.increment(key, windowMs);
      },
    },
    reached,
    open,
  };
}

describe('a client gone before the relay reads its body', () => {
  for (const fastPath of [true, false]) {
    it(`${fastPath ? 'the fast path' : 'the Hono path'}: the request still ends (access line 400, in-flight back to 0)`, async () => {
      const held = heldStore();
      const logs: LogRecord[] = [];
      const gauge: number[] = [];
      const metrics: MetricsSink = {
        award: () => {},
        limited: () => {},
        storeError: () => {},
        request: () => {},
        inFlight: (delta) => gauge.push(delta),
        upstream: () => {},
      };
      const relay = await startRelay({
        port: 0,
        fastPath,
        secret: SECRET,
        keySecret: KEY_SECRET,
        policy: POLICY,
        rateLimitStore: held.store,
        logger: (record) => logs.push(record),
        metrics,
        upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: async () => Response.json({ success: true }) },
      });
      relays.push(relay);
      const body = JSON.stringify({ serviceUserId: 'gone', eventPoints: 1 });
      const head =
        `POST /group-quests/q/points HTTP/1.1\r\nhost: 127.0.0.1:${relay.port}\r\ncontent-type: application/json\r\n` +
        `content-length: ${body.length}\r\nauthorization: Bearer ${await token({ sub: 'gone' })}\r\n\r\n`;
      const socket = connect(relay.port, '127.0.0.1');
      socket.on('data', () => {});
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => {});
      socket.write(head + body.slice(0, 5));
      // The request is inside the relay, held at its per-IP count, its body not read yet.
      await held.reached;
      // The client leaves (its FIN; the body's end never comes). The relay answers the cut request on the socket and
      // closes it: once the client sees that close, the relay's request object has been destroyed (Node aborts a
      // socket's unfinished requests in the socket's 'close', which runs before the client can read the FIN).
      socket.end();
      await closed;
      held.open();
      await until(() => logs.some((record) => record.msg === 'request'), 'the access line', 5_000);
      const line = logs.find((record) => record.msg === 'request');
      expect([line?.status, line?.code]).toEqual([400, 'invalid']);
      await until(() => gauge.length === 2, 'the in-flight gauge closed', 5_000);
      expect(gauge.reduce((sum, delta) => sum + delta, 0)).toBe(0);
    });
  }
});
