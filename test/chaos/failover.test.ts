// The chaos share of a Redis Cluster failover: two relays on a real 3-master, 3-replica cluster in front of the
// emulator; 16 players send awards (singles and batches, to either relay) as the SDK does: the same key again after
// any answer that is not final, and, for a fifth of the acknowledged ones, again later as if the acknowledgement had
// been lost. Mid-run a master is SIGKILLed; its replica is promoted, and the killed node later rejoins as a replica.
// The service forgets a key after 10 s (a short memory: the spec does not say how long), so a late resend is answered
// from the relay's record or not at all. The verdict reads the emulator's ledger: every award applied exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { upstreamIdempotencyKey } from '../../src/relay/keys.js';
import { startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { uuid } from '../relay/helpers.js';
import { createRng } from './rng.js';

const SEED = 3434;
const PLAYERS = 16;
const AWARDS_PER_PLAYER = 30;
const LOST_ACK_RATE = 0.2;
/**
 * The service's memory of a key: longer than the failover (an award refused with 503 meanwhile is sent again within
 * it), shorter than a lost acknowledgement's resend, which so finds only the relay's record.
 */
const SERVICE_MEMORY_MS = 10_000;
const LATE_RESEND_MS = 10_500;
const QUEST = 'failover-quest';

let cluster: TestRedisCluster;
let emulator: RunningEmulator;
const relays: RunningServer[] = [];
const logs: string[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  emulator = await startEmulator({ host: '127.0.0.1', port: 0, admin: true, apiKeys: [API_KEY], idempotencyTtlMs: SERVICE_MEMORY_MS });
  for (let i = 0; i < 2; i++) {
    relays.push(
      await startRelay({
        host: '127.0.0.1',
        port: 0,
        secret: SECRET,
        keySecret: KEY_SECRET,
        redis: cluster.url,
        onStoreError: 'closed',
        logger: (record) => {
          if (record.level === 'warn') logs.push(record.msg);
        },
        policy: { allowUnknownEvents: true, maxPointsPerAward: 100, rateLimits: { perPlayer: { limit: 1_000, windowSeconds: 60 } } },
        upstream: { url: emulator.url, apiKey: API_KEY },
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(relays.map((relay) => relay.close()));
  await emulator?.close();
  await cluster?.stop();
});

interface Award {
  sub: string;
  key: string;
  points: number;
}

/** One request (a single award, or a batch of its player's next awards); the awards it settled (acknowledged). */
async function send(url: string, jwt: string, awards: Award[]): Promise<Award[]> {
  try {
    if (awards.length === 1) {
      const [award] = awards as [Award];
      const response = await fetch(`${url}/group-quests/${QUEST}/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: award.key },
        body: JSON.stringify({ serviceUserId: award.sub, eventPoints: award.points }),
      });
      await response.arrayBuffer();
      if (response.status === 200) return [award];
      if (response.status >= 500 || response.status === 429) return [];
      throw new Error(`award ${award.key} refused: ${response.status}`);
    }
    const response = await fetch(`${url}/batch/points`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ awards: awards.map((a) => ({ questId: QUEST, serviceUserId: a.sub, eventPoints: a.points, idempotencyKey: a.key })) }),
    });
    if (response.status !== 200) {
      await response.arrayBuffer();
      return [];
    }
    const { results } = (await response.json()) as { results: { outcome: string; idempotencyKey: string }[] };
    const refused = results.find((r) => r.outcome === 'rejected');
    if (refused) throw new Error(`award ${refused.idempotencyKey} refused in a batch`);
    return awards.filter((_, i) => results[i]?.outcome === 'ok');
  } catch (error) {
    if (error instanceof Error && error.message.includes('refused')) throw error;
    return []; // the network: sent again
  }
}

describe('chaos: a Redis Cluster master SIGKILLed and failed over mid-run', () => {
  it('every award applied exactly once: none lost, none twice, late resends answered from the record', { timeout: 90_000 }, async () => {
    const rng = createRng(SEED);
    const started = Date.now();
    const issued: Award[] = [];
    let settledCount = 0;
    let lateResends = 0;
    let failover: Awaited<ReturnType<TestRedisCluster['killMaster']>> | undefined;
    const total = PLAYERS * AWARDS_PER_PLAYER;

    const player = async (p: number) => {
      const sub = `failover-${p}`;
      const jwt = await token({ sub });
      const queue: Award[] = Array.from({ length: AWARDS_PER_PLAYER }, () => ({ sub, key: uuid(), points: rng.int(1, 9) }));
      issued.push(...queue);
      const late: Promise<void>[] = [];
      while (queue.length) {
        // The SDK's way: the oldest awards first, one alone or a few together, again until acknowledged.
        const batch = queue.slice(0, rng.chance(0.5) ? 1 : rng.int(2, 5));
        const settled = await send(rng.pick(relays).url, jwt, batch);
        for (const award of settled) {
          queue.splice(queue.indexOf(award), 1);
          settledCount++;
          if (rng.chance(LOST_ACK_RATE)) {
            // Acknowledged, but the answer never reached the player: sent again once the service forgot the key.
            lateResends++;
            late.push(
              (async () => {
                await new Promise((resolve) => setTimeout(resolve, LATE_RESEND_MS));
                while ((await send(rng.pick(relays).url, jwt, [award])).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
              })(),
            );
          }
        }
        if (settled.length < batch.length) await new Promise((resolve) => setTimeout(resolve, rng.int(20, 100)));
      }
      await Promise.all(late);
    };

    const chaos = (async () => {
      // A third of the way in: kill a master, wait for its replica's promotion, then bring the node back (a replica now).
      while (settledCount < total / 3) await new Promise((resolve) => setTimeout(resolve, 20));
      failover = await cluster.killMaster();
      await cluster.restart(failover.killed);
    })();
    await Promise.all([...Array.from({ length: PLAYERS }, (_, p) => player(p)), chaos]);

    const ledger = (emulator.exportState().ledger ?? []).filter((entry) => entry.questId === QUEST);
    const applied = new Map<string, number>();
    for (const entry of ledger) applied.set(entry.idempotencyKey ?? '', (applied.get(entry.idempotencyKey ?? '') ?? 0) + 1);
    const times = issued.map((award) => applied.get(upstreamIdempotencyKey(KEY_SECRET, award.sub, award.key)) ?? 0);
    const lost = times.filter((n) => n === 0).length;
    const twice = times.filter((n) => n > 1).length;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `failover chaos, seed ${SEED}: ${issued.length} awards, ${lateResends} late resends, master failed over in ${failover?.ms} ms; ` +
        `${lost} lost, ${twice} applied twice, ${ledger.length} ledger entries, ${seconds} s; relay warnings: ${new Set(logs).size}\n${[...new Set(logs)].join('\n')}`,
    );
    expect(failover?.ms).toBeGreaterThan(0);
    expect(issued).toHaveLength(total);
    expect(lateResends).toBeGreaterThan(20);
    expect({ lost, twice }).toEqual({ lost: 0, twice: 0 });
    expect(ledger).toHaveLength(total);
  });
});
