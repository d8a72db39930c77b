// Figures 3-5: the relay as its own process under concurrent load, against a bare pass-through proxy on the same
// emulator process (3), with its Redis counter store against its memory one, then one relay against two sharing
// one Redis with the emulator answering after 50 ms (4), and the memory it holds after 100,000 distinct players (5).
// Every server is its own process (node --import tsx); the load generator is the bench process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { signPlayerToken, type RelayPolicy } from '../src/relay/index.js';
import { spawnEmulator, spawnServer, type ChildServer, type EmulatorProcess } from './lib/emulator-process.js';
import { runLoad } from './lib/load.js';
import { redisCommandCount, redisCpuMs, startRedis, type TestRedis } from './lib/redis.js';
import { API_KEY, KEY_SECRET, QUEST, SECRET, single, tokens } from './lib/relay-requests.js';
import { row, type Row } from './lib/table.js';
import { relayVsProxy } from './relay-proxy.js';

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
  /** Untimed awards each server takes just before each of its timed closed-loop turns (relay-proxy.ts `inTurns`). */
  ramp: number;
  /** Figure 3's open loop: seconds of arrivals per server per round, at half the proxy's single-award capacity. */
  openLoopSeconds: number;
  /** Figure 4's scale-out: players, awards each (the per-player limit), requests in flight, emulator latency. */
  scalePlayers: number;
  scaleAwardsEach: number;
  scaleConcurrency: number;
  latencyMs: number;
  /** Figure 5: distinct players through one relay. */
  memoryPlayers: number;
}

export const FULL_LOAD: LoadSizes = {
  singles: 16_000,
  players: 1_000,
  concurrency: 32,
  batches: 80,
  batchConcurrency: 4,
  rounds: 2,
  ramp: 2_000,
  openLoopSeconds: 8,
  scalePlayers: 2_000,
  scaleAwardsEach: 5,
  scaleConcurrency: 200,
  latencyMs: 50,
  memoryPlayers: 100_000,
};
export const QUICK_LOAD: LoadSizes = {
  singles: 40,
  players: 10,
  concurrency: 4,
  batches: 2,
  batchConcurrency: 2,
  rounds: 1,
  ramp: 4,
  openLoopSeconds: 0.5,
  scalePlayers: 10,
  scaleAwardsEach: 2,
  scaleConcurrency: 8,
  latencyMs: 5,
  memoryPlayers: 100,
};

const policy = (perPlayer: number): RelayPolicy => ({
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  // Both limits are counted on every award (so the store is on the path); only figure 4's per-player one bites.
  rateLimits: { perPlayer: { limit: perPlayer, windowSeconds: 3600 }, perIp: { limit: 1_000_000_000, windowSeconds: 3600 } },
});

async function startRelayProcess(dir: string, upstream: string, perPlayer: number, redis?: string, record = false): Promise<ChildServer> {
  const file = join(dir, `policy-${perPlayer}.json`);
  await writeFile(file, JSON.stringify(policy(perPlayer)));
  // QP_BENCH_PROFILE_DIR=dir: each relay writes a V8 CPU profile there when it stops (where its time goes).
  const profile = process.env.QP_BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.QP_BENCH_PROFILE_DIR}`] : [];
  return spawnServer(
    [
      'src/cli.ts',
      'relay',
      '--port',
      '0',
      '--upstream',
      upstream,
      '--policy',
      file,
      // With Redis the idempotency record is on by default: off unless the figure measures it.
      ...(redis ? ['--redis', redis, '--idempotency-days', record ? '30' : '0'] : []),
    ],
    { QP_API_KEY: API_KEY, QP_RELAY_SECRET: SECRET, QP_KEY_SECRET: KEY_SECRET },
    profile,
  );
}

/** `figures: ['3']` runs figure 3 alone (no Redis relay, no scale-out or memory run): what a profile of the relay wants. */
export async function runRelayLoadBench(
  sizes: LoadSizes,
  log: (line: string) => void = () => {},
  figures: readonly ('3' | '4' | '5')[] = ['3', '4', '5'],
): Promise<{ rows: Row[]; environment: Record<string, string | number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'qp-bench-relay-'));
  const owned: { close(): Promise<void> }[] = [];
  const own = <T extends { close(): Promise<void> }>(server: T): T => {
    owned.push(server);
    return server;
  };
  let redis: TestRedis | undefined;
  try {
    redis = await startRedis();
    const emulator = own(await spawnEmulator(API_KEY));
    const withFour = figures.includes('4');
    // Figure 3 alone (a profile's run) leaves out the Redis relays.
    const withRedis = withFour || !process.env.QP_BENCH_PROFILE_DIR;
    const [proxy, relay, relayRedis, relayRecord] = await Promise.all([
      spawnServer(['bench/lib/bare-proxy.ts'], { QP_UPSTREAM_URL: emulator.url, QP_API_KEY: API_KEY }).then(own),
      startRelayProcess(dir, emulator.url, 1_000_000_000).then(own),
      withRedis ? startRelayProcess(dir, emulator.url, 1_000_000_000, redis.url).then(own) : undefined,
      withRedis ? startRelayProcess(dir, emulator.url, 1_000_000_000, redis.url, true).then(own) : undefined,
    ]);
    const three = await relayVsProxy(sizes, { proxy, relay, relayRedis, relayRecord }, log);
    await Promise.all(owned.splice(0).map((s) => s.close()));

    const rows: Row[] = [...three.rows];
    if (withFour) {
      log('one relay vs two on one Redis, emulator latency fault');
      const scale = await scaleOut(sizes, dir, redis, own);
      await Promise.all(owned.splice(0).map((s) => s.close()));
      const r = three.singles.get('relay')!;
      const rr = three.singles.get('redis')!;
      rows.push(
        row({
          section: '4',
          figure: 'Redis store vs memory store: cost per award (1 / awards/s, same load)',
          unit: 'µs',
          ours: 1e6 / rr.perSecond,
          baseline: 1e6 / r.perSecond,
          ratio: r.perSecond / rr.perSecond,
          target: '<= 1.15x',
          pass: r.perSecond / rr.perSecond <= 1.15,
          note: `${Math.round(rr.perSecond)} against ${Math.round(r.perSecond)} awards/s; p99 ${rr.p99Ms.toFixed(2)} against ${r.p99Ms.toFixed(2)} ms`,
        }),
        row({
          section: '4',
          figure: 'Redis store vs memory store: relay CPU per award',
          unit: 'µs',
          ours: rr.cpuUsPerAward,
          baseline: r.cpuUsPerAward,
          ratio: rr.cpuUsPerAward / r.cpuUsPerAward,
          target: 'info',
        }),
        ...scale,
      );
    }
    if (figures.includes('5')) {
      log(`relay memory after ${sizes.memoryPlayers.toLocaleString('en-US')} players`);
      rows.push(...(await memoryFigures(sizes, dir, own)));
    }
    return {
      rows,
      environment: {
        relayTopology:
          'emulator, relays, bare proxy, redis-server: each its own process, unpinned, sharing the 2 cores with the load generator (bench process)',
      },
    };
  } finally {
    await Promise.all(owned.map((s) => s.close()));
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Figure 4, second half: the same load through one relay, then round-robin over two sharing one Redis. */
async function scaleOut(sizes: LoadSizes, dir: string, redis: TestRedis, own: <T extends { close(): Promise<void> }>(s: T) => T): Promise<Row[]> {
  const emulator = own(await spawnEmulator(API_KEY, { faults: { latencyMs: sizes.latencyMs } }));
  const [a, b] = await Promise.all([
    startRelayProcess(dir, emulator.url, sizes.scaleAwardsEach, redis.url).then(own),
    startRelayProcess(dir, emulator.url, sizes.scaleAwardsEach, redis.url).then(own),
  ]);
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
    const over = await runLoad({
      count: P * relays.length,
      concurrency: sizes.scaleConcurrency,
      okStatus: 429,
      make: (i) => make(P * sizes.scaleAwardsEach + i),
    });
    const delivered = await (emulator as EmulatorProcess).delivered(QUEST);
    return { main, commands, redisCpu, over, delivered, usage };
  };
  // Warm-up, untimed, on both relays: neither JIT is cold when timed (its own players, within their limit).
  const warmPlayers = Math.min(200, P);
  const warm = await tokens('w', warmPlayers);
  await runLoad({
    count: warmPlayers * sizes.scaleAwardsEach,
    concurrency: sizes.scaleConcurrency,
    make: (i) => single([a, b][i % 2]!.url, warm[i % warmPlayers]!, `w${i % warmPlayers}`, false),
  });
  const single1 = await run('one', [a]);
  const two = await run('two', [a, b]);
  const expected = P * sizes.scaleAwardsEach;
  const exact =
    single1.main.notOk === 0 &&
    single1.over.notOk === 0 &&
    two.main.notOk === 0 &&
    two.over.notOk === 0 &&
    two.delivered === 2 * expected + warmPlayers * sizes.scaleAwardsEach;
  const conc = `${P.toLocaleString('en-US')} players x ${sizes.scaleAwardsEach}, ${sizes.scaleConcurrency} in flight, emulator +${sizes.latencyMs} ms`;
  return [
    row({
      section: '4',
      figure: `two relays on one Redis vs one: awards/s (${conc})`,
      unit: 'awards/s',
      ours: two.main.perSecond,
      baseline: single1.main.perSecond,
      ratio: two.main.perSecond / single1.main.perSecond,
      target: '>= 1.3x',
      pass: two.main.perSecond / single1.main.perSecond >= 1.3,
      note: `no process pinned; all share the machine's ${cpus().length} cores. cores busy (CPU s per s) with one relay: ${describe(single1.usage)}; with two: ${describe(two.usage)}`,
    }),
    row({
      section: '4',
      figure: 'two relays vs one: p99 latency',
      unit: 'ms',
      ours: Number(two.main.p99Ms.toFixed(1)),
      baseline: Number(single1.main.p99Ms.toFixed(1)),
      target: 'info',
      note: `p50 ${two.main.p50Ms.toFixed(1)} against ${single1.main.p50Ms.toFixed(1)} ms`,
    }),
    row({
      section: '4',
      figure: 'Redis round trips per award, two relays (one relay as baseline; INFO commandstats)',
      unit: '',
      ours: two.commands.roundTrips / expected,
      baseline: single1.commands.roundTrips / expected,
      target: 'info',
      note: `Redis operations per award (script commands included) ${(two.commands.operations / expected).toFixed(2)}; redis-server CPU ${((two.redisCpu * 1000) / expected).toFixed(1)} µs per award (two relays), ${((single1.redisCpu * 1000) / expected).toFixed(1)} µs (one)`,
    }),
    row({
      section: '4',
      figure: `shared limit (${sizes.scaleAwardsEach} per player) held exactly over two relays`,
      unit: 'refused',
      ours: two.over.statuses[429] ?? 0,
      baseline: P * 2,
      target: 'every award past the limit refused, every one below delivered',
      pass: exact,
      note: `ledger ${two.delivered.toLocaleString('en-US')} of ${(2 * expected + warmPlayers * sizes.scaleAwardsEach).toLocaleString('en-US')} expected (warm-up included); one relay refused ${single1.over.statuses[429] ?? 0} of ${P}`,
    }),
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
    row({
      section: '5',
      figure: `relay RSS after ${N.toLocaleString('en-US')} distinct players (memory limiter)`,
      unit: 'MB',
      ours: mb(relayAfter),
      baseline: mb(relayBefore),
      target: 'bounded (LRU cap 200,000 counter keys)',
      note: `${sent.toLocaleString('en-US')} awards; +${mb(relayAfter - relayBefore).toFixed(1)} MB, ${((relayAfter - relayBefore) / N).toFixed(0)} B per player`,
    }),
    row({
      section: '5',
      figure: 'emulator RSS per stored award (ledger entry + idempotency entry)',
      unit: 'B',
      ours: (emulatorAfter - emulatorBefore) / N,
      target: 'info',
      note: `emulator RSS ${mb(emulatorBefore).toFixed(0)} -> ${mb(emulatorAfter).toFixed(0)} MB`,
    }),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  // --figure=3: figure 3 alone (e.g. under QP_BENCH_PROFILE_DIR, so the one relay's profile is of that load only).
  const figure = process.argv.find((a) => a.startsWith('--figure='))?.slice('--figure='.length);
  const figures = figure ? (figure.split(',') as ('3' | '4' | '5')[]) : undefined;
  const { rows } = await runRelayLoadBench(quick ? QUICK_LOAD : FULL_LOAD, (line) => console.error(`… ${line}`), figures);
  const { formatTable } = await import('./lib/table.js');
  console.log(formatTable(rows));
}
