// The economy rules' cost (issue 35, item 8): CPU per single award with every rule on against none, by figure 3's
// method (bench/relay-proxy.ts inTurns: each relay its own process in front of the same emulator process, closed-loop
// turns after an untimed ramp, summed over rounds). Four relays: memory stores and Redis (the record on, the single
// award's one script), each with the rules off and on. Every award passes every rule (budgets far above the load, a
// 1 ms cooldown, a fresh onceKey per award, a campaign around now), so each one is checked and reserved, never refused.
// `npx tsx bench/economy-cost.bench.ts [--quick]`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from '../src/protocol/index.js';
import type { RelayPolicy } from '../src/relay/index.js';
import { OFF, ON } from './economy-policies.js';
import { type ChildServer, spawnEmulator, spawnServer } from './lib/emulator-process.js';
import { runLoad } from './lib/load.js';
import { startRedis } from './lib/redis.js';
import { API_KEY, KEY_SECRET, QUEST, SECRET, tokens } from './lib/relay-requests.js';
import { inTurns } from './relay-proxy.js';

const quick = process.argv.includes('--quick');
// --singles=N: fewer awards per relay than figure 3's 16,000 (a shared machine); the same rounds, ramp and concurrency.
const singles = Number(process.argv.find((a) => a.startsWith('--singles='))?.slice('--singles='.length) ?? 16_000);
const sizes = quick
  ? { singles: 200, players: 20, concurrency: 4, rounds: 1, ramp: 20 }
  : { singles, players: 1_000, concurrency: 32, rounds: 2, ramp: 2_000 };

async function relayProcess(dir: string, name: string, upstream: string, policy: RelayPolicy, redis?: string): Promise<ChildServer> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(policy));
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
      ...(redis ? ['--redis', redis, '--idempotency-days', '30'] : []),
    ],
    {
      QP_API_KEY: API_KEY,
      QP_RELAY_SECRET: SECRET,
      QP_KEY_SECRET: KEY_SECRET,
    },
  );
}

const dir = await mkdtemp(join(tmpdir(), 'qp-bench-economy-'));
const redis = await startRedis();
const emulator = await spawnEmulator(API_KEY);
const servers = {
  'memory off': await relayProcess(dir, 'off', emulator.url, OFF),
  'memory on': await relayProcess(dir, 'on', emulator.url, ON),
  'redis off': await relayProcess(dir, 'off', emulator.url, OFF, redis.url),
  'redis on': await relayProcess(dir, 'on', emulator.url, ON, redis.url),
};
try {
  const playerTokens = await tokens('p', sizes.players);
  const perRound = Math.ceil(sizes.singles / sizes.rounds);
  const load = (server: ChildServer, count: number, round: number) =>
    runLoad({
      count,
      concurrency: sizes.concurrency,
      make: (i) => {
        const player = (i + round) % sizes.players;
        return {
          url: server.url,
          path: paths.points(QUEST),
          headers: { authorization: `Bearer ${playerTokens[player]}`, IDEMPOTENCY_KEY: crypto.randomUUID() },
          body: JSON.stringify({ serviceUserId: `p${player}`, eventPoints: 1, eventName: 'Bench', onceKey: crypto.randomUUID() }),
        };
      },
    });
  for (const server of Object.values(servers)) await load(server, Math.min(perRound, 1_000), 0);
  const measured = await inTurns(
    sizes.rounds,
    Object.entries(servers).map(([name, server]) => ({
      name,
      server,
      load: (round: number) => load(server, perRound, round),
      ramp: () => load(server, sizes.ramp, sizes.rounds),
    })),
  );
  const us = (name: string) => measured.get(name)!.cpuUsPerAward;
  const rate = (name: string) => measured.get(name)!.perSecond;
  for (const store of ['memory', 'redis']) {
    const [off, on] = [`${store} off`, `${store} on`];
    console.log(
      `${store}: CPU per single award ${us(on).toFixed(1)} / ${us(off).toFixed(1)} µs (rules on / off ${(us(on) / us(off)).toFixed(3)}x, target <= 1.15x); awards/s ${rate(on).toFixed(0)} / ${rate(off).toFixed(0)}`,
    );
  }
} finally {
  await Promise.all([...Object.values(servers), emulator].map((s) => s.close()));
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
