// The economy step's own CPU per single award, in-process (no sockets, no load generator: what the step adds to the
// relay's code alone, robust on a busy shared machine where figure 3's process CPU swings by tens of percent).
// createRelay on memory stores with a service that answers at once; blocks of awards alternate rules off / on and
// each block's process CPU (user + system) is summed per side. `npx tsx bench/economy-inprocess.bench.ts`.
import { createRelay, signPlayerToken } from '../src/relay/index.js';
import { OFF, ON } from './economy-policies.js';
import { API_KEY, KEY_SECRET, QUEST, SECRET } from './lib/relay-requests.js';

const blocks = Number(process.argv.find((a) => a.startsWith('--blocks='))?.slice('--blocks='.length) ?? 20);
const perBlock = 2_000;
const players = 1_000;
const relay = (policy: typeof OFF) =>
  createRelay({
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy,
    logger: () => {},
    upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: async () => Response.json({ success: true }) },
  });
const relays = { off: relay(OFF), on: relay(ON) };
const tokens = await Promise.all(Array.from({ length: players }, (_, i) => signPlayerToken({ sub: `p${i}` }, { secret: SECRET, ttl: '30m' })));
let n = 0;
async function block(app: ReturnType<typeof createRelay>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < perBlock; i++) {
    const player = n++ % players;
    const response = await app.fetch(
      new Request(`http://relay.test/group-quests/${QUEST}/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[player]}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: `p${player}`, eventPoints: 1, eventName: 'Bench', onceKey: crypto.randomUUID() }),
      }),
    );
    if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`);
  }
  const used = process.cpuUsage(before);
  return used.user + used.system;
}
// Warm-up: both paths compiled before timing.
await block(relays.off);
await block(relays.on);
const total = { off: 0, on: 0 };
for (let b = 0; b < blocks; b++)
  for (const side of b % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) total[side] += await block(relays[side]);
const awards = blocks * perBlock;
const [off, on] = [total.off / awards, total.on / awards];
console.log(
  `in-process CPU per single award: rules on ${on.toFixed(1)} µs, off ${off.toFixed(1)} µs (${(on / off).toFixed(3)}x, +${(on - off).toFixed(1)} µs), ${awards} awards each`,
);
