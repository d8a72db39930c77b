// npx tsx bench/redis-capacity.bench.ts — what Redis itself carries of the relay's per-award work, measured with
// redis-benchmark (Debian's redis-tools) against a throwaway redis-server and a throwaway 3-master Redis Cluster: the
// per-player hit with the record lookup (the store's one script, EVALSHA with 2 keys), the record's write (SET ... PX),
// and the per-IP hit (the other script, 1 key). Keys are spread over 100,000 players; 50 connections, 16 commands
// pipelined each. Bounded: about 20 s. A benchmark, not a test: it prints figures (docs/relay/operate.md quotes them).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { REDIS_SCRIPTS } from '../src/relay/node/redis-store.js';
import { startRedis } from '../test/helpers/redis.js';
import { redisCliPath, startRedisCluster } from '../test/helpers/redis-cluster.js';

const run = promisify(execFile);
const sha = (text: string) => createHash('sha1').update(text).digest('hex');
const N = 200_000;

async function bench(port: number, cluster: boolean, args: string[]): Promise<number> {
  const flags = ['-p', String(port), '-n', String(N), '-c', '50', '-P', '16', '-r', '100000', '-q', ...(cluster ? ['--cluster'] : [])];
  const { stdout } = await run('redis-benchmark', [...flags, ...args], { maxBuffer: 1 << 20 });
  const match = /([\d.]+) requests per second/.exec(stdout);
  if (!match) throw new Error(`redis-benchmark said: ${stdout}`);
  return Math.round(Number(match[1]));
}

async function figures(port: number, cluster: boolean) {
  // redis-benchmark --cluster puts each command on a node by the `{tag}` placeholder; one server ignores the braces.
  const tag = cluster ? '{tag}' : '{p__rand_int__}';
  const hitAndGet = await bench(port, cluster, [
    'EVALSHA',
    sha(REDIS_SCRIPTS.hitAndGet),
    '2',
    `qp:rl:perPlayer:${tag}`,
    `qp:idem:${tag}:__rand_int__`,
    '60000',
  ]);
  const set = await bench(port, cluster, ['SET', `qp:idem:${tag}:__rand_int__`, '{"f":"0123456789abcdef","s":200}', 'PX', '2592000000']);
  const hit = await bench(port, cluster, ['EVALSHA', sha(REDIS_SCRIPTS.hit), '1', `qp:rl:perIp:${tag}`, '60000']);
  // A single award with the record on: one hit-and-lookup, one SET, and its request's per-IP hit.
  const perAward = Math.round(1 / (1 / hitAndGet + 1 / set + 1 / hit));
  return { hitAndGet, set, hit, perAward };
}

const load = loadavg()[0]!.toFixed(1);
const single = await startRedis();
try {
  for (const script of Object.values(REDIS_SCRIPTS)) await run(redisCliPath(), ['-p', String(single.port), 'SCRIPT', 'LOAD', script]);
  console.log('one redis-server (one core):', await figures(single.port, false), `load ${load}`);
} finally {
  await single.stop();
}
const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
try {
  for (const node of cluster.nodes)
    for (const script of Object.values(REDIS_SCRIPTS)) await run(redisCliPath(), ['-p', String(node.port), 'SCRIPT', 'LOAD', script]);
  console.log('Redis Cluster, 3 masters:', await figures(cluster.nodes[0]!.port, true), `load ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await cluster.stop();
}
