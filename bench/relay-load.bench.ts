// Figures 3-5: the relay as its own process under concurrent load, against a bare pass-through proxy on the same
// emulator process (3), with its Redis counter store against its memory one, then one relay against two sharing
// one Redis with the emulator answering after 50 ms (4), and the memory it holds after 100,000 distinct players (5).
// Every server is its own process (node --import tsx); the load generator is the bench process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths, type QueuedAward } from '../src/protocol/index.js';
import { signPlayerToken, type RelayPolicy } from '../src/relay/index.js';
import { spawnEmulator, spawnServer, type ChildServer, type EmulatorProcess } from './lib/emulator-process.js';
import { runLoad, type LoadRequest, type LoadResult } from './lib/load.js';
import { redisCommandCount, redisCpuMs, startRedis, type TestRedis } from './lib/redis.js';
import { row, type Row } from './lib/table.js';

const API_KEY = 'bench-api-key-0123456789abcdef';
const SECRET = 'bench-relay-secret-0123456789abcdef0123';
/** Names upstream idempotency keys (never rotates). */
const KEY_SECRET = 'bench-key-secret-fedcba9876543210fedcba98';
const QUEST = 'bench';

export interface LoadSizes {
  /** Single awards per server per figure-3 run (split over `rounds`), and the players they come from. */
  singles: number;
  players: number;
  concurrency: number;
  /** 100-award batches (each over 100 players, admin token) per server, and batches in flight. */
  batches: number;
  batchConcurrency: number;
  /** Rounds the servers take turns in, so machine noise falls on each alike. */
  rounds: number;
  /** Figure 4's scale-out: players, awards each (the per-player limit), requests in flight, emulator latency. */
  scalePlayers: number;
  scaleAwardsEach: number;
  scaleConcurrency: number;
  latencyMs: number;
  /** Figure 5: distinct players through one relay. */
  memoryPlayers: number;
}

export const FULL_LOAD: LoadSizes = { singles: 16_000, players: 1_000, concurrency: 32, batches: 80, batchConcurrency: 4, rounds: 2, scalePlayers: 2_000, scaleAwardsEach: 5, scaleConcurrency: 200, latencyMs: 50, memoryPlayers: 100_000 };
export const QUICK_LOAD: LoadSizes = { singles: 40, players: 10, concurrency: 4, batches: 2, batchConcurrency: 2, rounds: 1, scalePlayers: 10, scaleAwardsEach: 2, scaleConcurrency: 8, latencyMs: 5, memoryPlayers: 100 };

const policy = (perPlayer: number): RelayPolicy => ({
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  // Both limits are counted on every award (so the store is on the path); only figure 4's per-player one bites.
  rateLimits: { perPlayer: { limit: perPlayer, windowSeconds: 3600 }, perIp: { limit: 1_000_000_000, windowSeconds: 3600 } },
});

async function startRelayProcess(dir: string, upstream: string, perPlayer: number, redis?: string): Promise<ChildServer> {
  const file = join(dir, `policy-${perPlayer}.json`);
  await writeFile(file, JSON.stringify(policy(perPlayer)));
  // QP_BENCH_PROFILE_DIR=dir: each relay writes a V8 CPU profile there when it stops (where its time goes).
  const profile = process.env.QP_BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.QP_BENCH_PROFILE_DIR}`] : [];
  return spawnServer(['src/cli.ts', 'relay', '--port', '0', '--upstream', upstream, '--policy', file, ...(redis ? ['--redis', redis] : [])], { QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET, QP_KEY_SECRET: KEY_SECRET }, profile);
}

const tokens = (prefix: string, n: number) => Promise.all(Array.from({ length: n }, (_, i) => signPlayerToken({ sub: `${prefix}${i}` }, { secret: SECRET, ttl: '30m' })));

function single(url: string, token: string, serviceUserId: string, viaProxy: boolean): LoadRequest {
  const body = JSON.stringify({ serviceUserId, eventPoints: 1, eventName: 'Bench' });
  // The proxy adds the API key itself; the token it is handed is simply not used.
  return { url, path: paths.points(QUEST), headers: { [viaProxy ? 'x-unused' : 'authorization']: `Bearer ${token}`, IDEMPOTENCY_KEY: crypto.randomUUID() }, body };
}

function batch(url: string, admin: string, offset: number, players: number): LoadRequest {
  const awards: QueuedAward[] = Array.from({ length: 100 }, (_, k) => ({ questId: QUEST, idempotencyKey: crypto.randomUUID(), serviceUserId: `p${(offset + k) % players}`, eventPoints: 1, eventName: 'Bench' }));
  return { url, path: paths.batch(), headers: { authorization: `Bearer ${admin}` }, body: JSON.stringify({ awards }) };
}

/** Runs each contender's load in turns (`rounds`), summing the results; CPU ms of each contender's process too. */
async function inTurns(rounds: number, contenders: { name: string; server: ChildServer; load: (round: number) => Promise<LoadResult> }[]) {
  const totals = new Map(contenders.map((c) => [c.name, { results: [] as LoadResult[], cpuMs: 0 }]));
  for (let r = 0; r < rounds; r++)
    for (const c of contenders) {
      const cpu = await c.server.cpuMs();
      const result = await c.load(r);
      const total = totals.get(c.name)!;
      total.cpuMs += (await c.server.cpuMs()) - cpu;
      total.results.push(result);
    }
  return new Map(
    [...totals].map(([name, { results, cpuMs }]) => {
      const ms = results.reduce((a, r) => a + r.ms, 0);
      const units = results.reduce((a, r) => a + r.perSecond * (r.ms / 1000), 0);
      const notOk = results.reduce((a, r) => a + r.notOk, 0);
      if (notOk) throw new Error(`${name}: ${notOk} awards not delivered: ${results.flatMap((r) => r.failures).join(' | ')}`);
      // Percentiles of the rounds' percentiles would not be percentiles: take the worst round's (rounds are equal-sized).
      return [name, { perSecond: units / (ms / 1000), p50Ms: Math.max(...results.map((r) => r.p50Ms)), p99Ms: Math.max(...results.map((r) => r.p99Ms)), cpuUsPerAward: (cpuMs * 1000) / units, awards: units }];
    }),
  );
}

export async function runRelayLoadBench(sizes: LoadSizes, log: (line: string) => void = () => {}): Promise<{ rows: Row[]; environment: Record<string, string | number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'qp-bench-relay-'));
  const owned: { close(): Promise<void> }[] = [];
  const own = <T extends { close(): Promise<void> }>(server: T) => (owned.push(server), server);
  let redis: TestRedis | undefined;
  try {
    redis = await startRedis();
    const emulator = own(await spawnEmulator(API_KEY));
    const [proxy, relay, relayRedis] = await Promise.all([
      spawnServer(['bench/lib/bare-proxy.ts'], { QP_UPSTREAM_URL: emulator.url, QP_API_KEY: API_KEY }).then(own),
      startRelayProcess(dir, emulator.url, 1_000_000_000).then(own),
      startRelayProcess(dir, emulator.url, 1_000_000_000, redis.url).then(own),
    ]);
    const playerTokens = await tokens('p', sizes.players);
    const admin = await signPlayerToken({ sub: 'ops', role: 'admin' }, { secret: SECRET, ttl: '30m' });
    const perRound = Math.ceil(sizes.singles / sizes.rounds);
    const singles = (server: ChildServer, viaProxy: boolean, count = perRound) => (round: number) =>
      runLoad({ count, concurrency: sizes.concurrency, make: (i) => single(server.url, playerTokens[(i + round) % sizes.players]!, `p${(i + round) % sizes.players}`, viaProxy) });
    // Warm-up: each server's JIT sees the path before timing.
    for (const [server, viaProxy] of [[proxy, true], [relay, false], [relayRedis, false]] as const) await singles(server, viaProxy, Math.min(perRound, 1_000))(0);

    log('relay vs bare proxy, memory vs Redis store: single awards');
    const one = await inTurns(sizes.rounds, [
      { name: 'proxy', server: proxy, load: singles(proxy, true) },
      { name: 'relay', server: relay, load: singles(relay, false) },
      { name: 'redis', server: relayRedis, load: singles(relayRedis, false) },
    ]);
    log('relay vs bare proxy: 100-award batches');
    const perRoundBatches = Math.ceil(sizes.batches / sizes.rounds);
    const batches = (server: ChildServer) => (round: number) =>
      runLoad({ count: perRoundBatches, concurrency: sizes.batchConcurrency, units: 100, make: (i) => batch(server.url, admin, (i + round) * 100, sizes.players) });
    const hundred = await inTurns(sizes.rounds, [
      { name: 'proxy', server: proxy, load: batches(proxy) },
      { name: 'relay', server: relay, load: batches(relay) },
    ]);
    await Promise.all(owned.splice(0).map((s) => s.close()));

    log('one relay vs two on one Redis, emulator latency fault');
    const scale = await scaleOut(sizes, dir, redis, own);
    await Promise.all(owned.splice(0).map((s) => s.close()));

    log(`relay memory after ${sizes.memoryPlayers.toLocaleString('en-US')} players`);
    const memory = await memoryFigures(sizes, dir, own);

    const p = one.get('proxy')!;
    const r = one.get('relay')!;
    const rr = one.get('redis')!;
    const bp = hundred.get('proxy')!;
    const br = hundred.get('relay')!;
    const conc = `${sizes.concurrency} in flight, ${sizes.players.toLocaleString('en-US')} players`;
    const ms = (v: number) => Number(v.toFixed(2));
    const rows: Row[] = [
      row({ section: '3', figure: `relay vs bare proxy: single awards/s (${conc})`, unit: 'awards/s', ours: r.perSecond, baseline: p.perSecond, ratio: r.perSecond / p.perSecond, target: '>= 0.7x', pass: r.perSecond / p.perSecond >= 0.7, note: `relay process CPU ${r.cpuUsPerAward.toFixed(0)} µs per award, proxy ${p.cpuUsPerAward.toFixed(0)} µs` }),
      row({ section: '3', figure: 'relay vs bare proxy: single award p50 latency', unit: 'ms', ours: ms(r.p50Ms), baseline: ms(p.p50Ms), target: 'info (added p50 below)' }),
      row({ section: '3', figure: 'relay vs bare proxy: single award p99 latency', unit: 'ms', ours: ms(r.p99Ms), baseline: ms(p.p99Ms), target: 'added <= +2 ms', pass: r.p99Ms - p.p99Ms <= 2, note: `added p50 ${(r.p50Ms - p.p50Ms).toFixed(2)} ms, added p99 ${(r.p99Ms - p.p99Ms).toFixed(2)} ms` }),
      row({ section: '3', figure: `relay vs bare proxy: 100-award batches, awards/s (${sizes.batchConcurrency} in flight, admin, 100 players each)`, unit: 'awards/s', ours: br.perSecond, baseline: bp.perSecond, ratio: br.perSecond / bp.perSecond, target: '>= 0.7x', pass: br.perSecond / bp.perSecond >= 0.7, note: `relay process CPU ${br.cpuUsPerAward.toFixed(0)} µs per award, proxy ${bp.cpuUsPerAward.toFixed(0)} µs` }),
      row({ section: '3', figure: 'relay vs bare proxy: 100-award batch p99 latency', unit: 'ms', ours: ms(br.p99Ms), baseline: ms(bp.p99Ms), target: 'added <= +2 ms', pass: br.p99Ms - bp.p99Ms <= 2, note: `added p50 ${(br.p50Ms - bp.p50Ms).toFixed(2)} ms, added p99 ${(br.p99Ms - bp.p99Ms).toFixed(2)} ms` }),
      row({ section: '4', figure: 'Redis store vs memory store: cost per award (1 / awards/s, same load)', unit: 'µs', ours: 1e6 / rr.perSecond, baseline: 1e6 / r.perSecond, ratio: r.perSecond / rr.perSecond, target: '<= 1.15x', pass: r.perSecond / rr.perSecond <= 1.15, note: `${Math.round(rr.perSecond)} against ${Math.round(r.perSecond)} awards/s; p99 ${rr.p99Ms.toFixed(2)} against ${r.p99Ms.toFixed(2)} ms` }),
      row({ section: '4', figure: 'Redis store vs memory store: relay CPU per award', unit: 'µs', ours: rr.cpuUsPerAward, baseline: r.cpuUsPerAward, ratio: rr.cpuUsPerAward / r.cpuUsPerAward, target: 'info' }),
      ...scale,
      ...memory,
    ];
    return { rows, environment: { relayTopology: 'emulator, relays, bare proxy, redis-server: each its own process, unpinned, sharing the 2 cores with the load generator (bench process)' } };
  } finally {
    await Promise.all(owned.map((s) => s.close()));
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Figure 4, second half: the same load through one relay, then round-robin over two sharing one Redis. */
async function scaleOut(sizes: LoadSizes, dir: string, redis: TestRedis, own: <T extends { close(): Promise<void> }>(s: T) => T): Promise<Row[]> {
  const emulator = own(await spawnEmulator(API_KEY, { faults: { latencyMs: sizes.latencyMs } }));
  const [a, b] = await Promise.all([startRelayProcess(dir, emulator.url, sizes.scaleAwardsEach, redis.url).then(own), startRelayProcess(dir, emulator.url, sizes.scaleAwardsEach, redis.url).then(own)]);
  const P = sizes.scalePlayers;
  const run = async (prefix: string, relays: ChildServer[]) => {
    const jwt = await tokens(prefix, P);
    // The k-th award of player j goes to relay (j + k) % n: every player's awards reach every relay.
    const make = (i: number) => {
      const j = i % P;
      const k = Math.floor(i / P);
      return single(relays[(j + k) % relays.length]!.url, jwt[j]!, `${prefix}${j}`, false);
    };
    const before = await redisCommandCount(redis.port);
    const cpu = await redisCpuMs(redis.port);
    // Every process's CPU over the run: whether the machine's cores, not the relays, were the limit.
    const processes = [...relays, emulator];
    const cpuBefore = await Promise.all(processes.map((s) => s.cpuMs()));
    const ownBefore = process.cpuUsage();
    const main = await runLoad({ count: P * sizes.scaleAwardsEach, concurrency: sizes.scaleConcurrency, make });
    const cpuAfter = await Promise.all(processes.map((s) => s.cpuMs()));
    const own = process.cpuUsage(ownBefore);
    const after = await redisCommandCount(redis.port);
    const commands = { roundTrips: after.roundTrips - before.roundTrips, operations: after.operations - before.operations };
    const redisCpu = (await redisCpuMs(redis.port)) - cpu;
    const cores = (ms: number) => ms / main.ms;
    const relayCores = relays.map((_, i) => cores(cpuAfter[i]! - cpuBefore[i]!));
    const usage = {
      relays: relayCores,
      emulator: cores(cpuAfter.at(-1)! - cpuBefore.at(-1)!),
      redis: cores(redisCpu),
      loadGenerator: cores((own.user + own.system) / 1000),
    };
    // Past the limit: one more award per player on each relay; every one must be refused (429).
    const over = await runLoad({ count: P * relays.length, concurrency: sizes.scaleConcurrency, okStatus: 429, make: (i) => make(P * sizes.scaleAwardsEach + i) });
    const delivered = await (emulator as EmulatorProcess).delivered(QUEST);
    return { main, commands, redisCpu, over, delivered, usage };
  };
  // Warm-up, untimed, on both relays: neither JIT is cold when timed (its own players, within their limit).
  const warmPlayers = Math.min(200, P);
  const warm = await tokens('w', warmPlayers);
  await runLoad({ count: warmPlayers * sizes.scaleAwardsEach, concurrency: sizes.scaleConcurrency, make: (i) => single([a, b][i % 2]!.url, warm[i % warmPlayers]!, `w${i % warmPlayers}`, false) });
  const single1 = await run('one', [a]);
  const two = await run('two', [a, b]);
  const expected = P * sizes.scaleAwardsEach;
  const exact = single1.main.notOk === 0 && single1.over.notOk === 0 && two.main.notOk === 0 && two.over.notOk === 0 && two.delivered === 2 * expected + warmPlayers * sizes.scaleAwardsEach;
  const conc = `${P.toLocaleString('en-US')} players x ${sizes.scaleAwardsEach}, ${sizes.scaleConcurrency} in flight, emulator +${sizes.latencyMs} ms`;
  return [
    row({ section: '4', figure: `two relays on one Redis vs one: awards/s (${conc})`, unit: 'awards/s', ours: two.main.perSecond, baseline: single1.main.perSecond, ratio: two.main.perSecond / single1.main.perSecond, target: '>= 1.3x', pass: two.main.perSecond / single1.main.perSecond >= 1.3, note: `no process pinned; all share the machine's ${cpus().length} cores. cores busy (CPU s per s) with one relay: ${describe(single1.usage)}; with two: ${describe(two.usage)}` }),
    row({ section: '4', figure: 'two relays vs one: p99 latency', unit: 'ms', ours: Number(two.main.p99Ms.toFixed(1)), baseline: Number(single1.main.p99Ms.toFixed(1)), target: 'info', note: `p50 ${two.main.p50Ms.toFixed(1)} against ${single1.main.p50Ms.toFixed(1)} ms` }),
    row({ section: '4', figure: 'Redis round trips per award, two relays (one relay as baseline; INFO commandstats)', unit: '', ours: two.commands.roundTrips / expected, baseline: single1.commands.roundTrips / expected, target: 'info', note: `Redis operations per award (script commands included) ${(two.commands.operations / expected).toFixed(2)}; redis-server CPU ${((two.redisCpu * 1000) / expected).toFixed(1)} µs per award (two relays), ${((single1.redisCpu * 1000) / expected).toFixed(1)} µs (one)` }),
    row({ section: '4', figure: `shared limit (${sizes.scaleAwardsEach} per player) held exactly over two relays`, unit: 'refused', ours: two.over.statuses[429] ?? 0, baseline: P * 2, target: 'every award past the limit refused, every one below delivered', pass: exact, note: `ledger ${two.delivered.toLocaleString('en-US')} of ${(2 * expected + warmPlayers * sizes.scaleAwardsEach).toLocaleString('en-US')} expected (warm-up included); one relay refused ${single1.over.statuses[429] ?? 0} of ${P}` }),
  ];
}

const describe = (u: { relays: number[]; emulator: number; redis: number; loadGenerator: number }) =>
  `relay${u.relays.length > 1 ? 's' : ''} ${u.relays.map((c) => c.toFixed(2)).join(' + ')}, emulator ${u.emulator.toFixed(2)}, redis ${u.redis.toFixed(2)}, load generator ${u.loadGenerator.toFixed(2)}, total ${(u.relays.reduce((a, b) => a + b, 0) + u.emulator + u.redis + u.loadGenerator).toFixed(2)}`;

/** Figure 5: one relay (memory limiter) and the emulator, RSS before and after `memoryPlayers` distinct players. */
async function memoryFigures(sizes: LoadSizes, dir: string, own: <T extends { close(): Promise<void> }>(s: T) => T): Promise<Row[]> {
  const emulator = own(await spawnEmulator(API_KEY));
  const relay = own(await startRelayProcess(dir, emulator.url, 60));
  const N = sizes.memoryPlayers;
  const sign = (i: number) => signPlayerToken({ sub: `m${i}` }, { secret: SECRET, ttl: '30m' });
  await runLoad({ count: 200, concurrency: 16, make: () => single(relay.url, '', '', false), okStatus: 401 });
  const relayBefore = await relay.rss();
  const emulatorBefore = await emulator.rss();
  // Tokens are signed as the load runs, in chunks, so 100,000 of them are never held at once.
  const CHUNK = 5_000;
  let sent = 0;
  for (let start = 0; start < N; start += CHUNK) {
    const jwt = await Promise.all(Array.from({ length: Math.min(CHUNK, N - start) }, (_, k) => sign(start + k)));
    const result = await runLoad({ count: jwt.length, concurrency: 64, make: (k) => single(relay.url, jwt[k]!, `m${start + k}`, false) });
    if (result.notOk) throw new Error(`memory run: ${result.notOk} awards refused: ${result.failures.join(' | ')}`);
    sent += jwt.length;
  }
  const relayAfter = await relay.rss();
  const emulatorAfter = await emulator.rss();
  const mb = (b: number) => b / 2 ** 20;
  return [
    row({ section: '5', figure: `relay RSS after ${N.toLocaleString('en-US')} distinct players (memory limiter)`, unit: 'MB', ours: mb(relayAfter), baseline: mb(relayBefore), target: 'bounded (LRU cap 200,000 counter keys)', note: `${sent.toLocaleString('en-US')} awards; +${mb(relayAfter - relayBefore).toFixed(1)} MB, ${((relayAfter - relayBefore) / N).toFixed(0)} B per player` }),
    row({ section: '5', figure: 'emulator RSS per stored award (ledger entry + idempotency entry)', unit: 'B', ours: (emulatorAfter - emulatorBefore) / N, target: 'info', note: `emulator RSS ${mb(emulatorBefore).toFixed(0)} -> ${mb(emulatorAfter).toFixed(0)} MB` }),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const { rows } = await runRelayLoadBench(quick ? QUICK_LOAD : FULL_LOAD, (line) => console.error(`… ${line}`));
  const { formatTable } = await import('./lib/table.js');
  console.log(formatTable(rows));
}
