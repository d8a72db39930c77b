// The relay's Redis tests on a real Redis Cluster: 3 masters, 3 replicas (Debian's redis-server --cluster-enabled,
// joined by redis-cli --cluster create). Before the keys carried hash tags, the per-player hit and the record lookup
// (one script) and a batch's MGET failed here with CROSSSLOT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterKey } from '../../src/relay/counter-store.js';
import { parseRedisUrl } from '../../src/relay/node/redis-connect.js';
import { taggedRecordKey } from '../../src/relay/node/redis-store.js';
import { recordKey } from '../../src/relay/records.js';
import { startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { upstreamKey } from '../helpers/fixtures.js';
import { uuid } from './helpers.js';
import { economyRedisSuite } from './economy-redis-suite.js';
import { redisSuite } from './redis-suite.js';

let cluster: TestRedisCluster;
let masters: number[] = [];
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  // INFO commandstats of the masters: a replica replays what its master ran, which would count it twice.
  masters = (await cluster.masters()).map((node) => node.port);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

redisSuite(() => ({ url: cluster.url, ports: masters }));
economyRedisSuite(() => ({ url: cluster.url, ports: masters }));

describe('keys on a Redis Cluster', () => {
  it("a player's counter and records share one slot; other players spread over the slots", async () => {
    const node = cluster.nodes[0]!;
    const slot = async (key: string) => Number(await cluster.command(node, `CLUSTER KEYSLOT "${key}"`));
    const slotsOf = async (sub: string) =>
      Promise.all([counterKey('perPlayer', sub), ...[uuid(), uuid()].map((key) => taggedRecordKey(recordKey(upstreamKey(sub, key)), sub))].map(slot));
    for (const sub of ['alice', 'bob@example.com', 'auth0|5f1c', 'has {braces} in it']) {
      const slots = await slotsOf(sub);
      expect(new Set(slots).size, `${sub}: ${slots}`).toBe(1);
    }
    const spread = await Promise.all(Array.from({ length: 20 }, (_, i) => slotsOf(`player-${i}`).then(([first]) => first)));
    expect(new Set(spread).size).toBeGreaterThan(10);
  });
});

describe('parseRedisUrl', () => {
  it('reads one server, or a cluster by its seed nodes with credentials and TLS for every node; refuses anything else', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ cluster: false, url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('rediss+cluster://relay:p%40ss@a.example:7000,b.example:7001')).toEqual({
      cluster: true,
      rootUrls: ['rediss://relay:p%40ss@a.example:7000', 'rediss://relay:p%40ss@b.example:7001'],
      username: 'relay',
      password: 'p@ss',
      tls: true,
    });
    expect(parseRedisUrl('redis+cluster://10.0.0.5:6379')).toEqual({ cluster: true, rootUrls: ['redis://10.0.0.5:6379'], tls: false });
    for (const bad of ['http://x:1', 'redis+cluster://', 'redis+cluster://host-without-port', 'redis+cluster://a:1,b']) {
      expect(() => parseRedisUrl(bad), bad).toThrow(/Redis URL must start with|host:port/);
    }
  });
});
