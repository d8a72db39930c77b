// npm run bench:relay — what the relay costs on top of the service, in one run: awards/s straight to the emulator
// (baseline) vs through relay -> emulator, single awards and 100-award batches. The emulator runs as its own
// process (the service is never in the relay's process in production) and both the baseline and the relay reach it
// over loopback HTTP; the relay is called in the bench process (relay.fetch), so the one extra hop ours pays is the
// relay's own work. A benchmark, not a test: it prints figures.
import { spawnEmulator } from './lib/emulator-process.js';
import { paths, type QueuedAward } from '../src/protocol/index.js';
import { createRelay, signPlayerToken } from '../src/relay/index.js';

const API_KEY = 'bench-api-key-0123456789abcdef';
const SECRET = 'bench-relay-secret-0123456789abcdef0123';
/** Names upstream idempotency keys (never rotates). */
const KEY_SECRET = 'bench-key-secret-fedcba9876543210fedcba98';
const AWARDS = 5_000;
const BATCHES = 60;
const USERS = 100;

async function perSecond(count: number, units: number, send: (i: number) => Promise<Response>) {
  for (let i = 0; i < 200; i++) await (await send(-1 - i)).arrayBuffer(); // warm-up
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const response = await send(i);
    const text = await response.text();
    if (response.status !== 200 || text.includes('"retry"') || text.includes('"rejected"')) {
      throw new Error(`request ${i} answered ${response.status}: ${text.slice(0, 200)}`);
    }
  }
  return (count * units) / ((performance.now() - started) / 1000);
}

const award = (i: number) => ({ serviceUserId: `user-${((i % USERS) + USERS) % USERS}`, eventPoints: 1.5, eventName: 'Bench' });
const post = (url: string, headers: Record<string, string>, body: unknown) =>
  new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

export async function runRelayBench(): Promise<Record<string, number | string>> {
  const service = await spawnEmulator(API_KEY);
  try {
    return await measure(service.url);
  } finally {
    await service.close();
  }
}

async function measure(serviceUrl: string): Promise<Record<string, number | string>> {
  // Each figure starts from an empty service, as a fresh emulator would.
  const resetService = async () => {
    const reset = await fetch(`${serviceUrl}/__emulator/reset`, { method: 'POST' });
    if (!reset.ok) throw new Error(`emulator reset answered ${reset.status}`);
  };
  const freshRelay = async () => {
    await resetService();
    return createRelay({
      secret: SECRET,
      keySecret: KEY_SECRET,
      upstream: { url: serviceUrl, apiKey: API_KEY },
      policy: { allowUnknownEvents: true, maxPointsPerAward: 100 },
      logger: () => {},
    });
  };
  const tokens = await Promise.all(Array.from({ length: USERS }, (_, u) => signPlayerToken({ sub: `user-${u}` }, { secret: SECRET, ttl: '1h' })));
  const admin = await signPlayerToken({ sub: 'ops', role: 'admin' }, { secret: SECRET, ttl: '1h' });
  const tokenOf = (i: number) => tokens[((i % USERS) + USERS) % USERS]!;

  // Single awards, each with its own IDEMPOTENCY_KEY, as the SDK sends them.
  await resetService();
  const directPerSec = await perSecond(AWARDS, 1, async (i) =>
    fetch(post(`${serviceUrl}${paths.points('bench')}`, { API_KEY, IDEMPOTENCY_KEY: crypto.randomUUID() }, award(i))),
  );
  const viaRelay = await freshRelay();
  const relayPerSec = await perSecond(AWARDS, 1, async (i) =>
    viaRelay.fetch(
      post(`http://relay.local${paths.points('bench')}`, { authorization: `Bearer ${tokenOf(i)}`, IDEMPOTENCY_KEY: crypto.randomUUID() }, award(i)),
    ),
  );

  // 100-award batches: one player (one lane, in order) and an admin over 100 users (8 lanes at once).
  const batchOf = (i: number, users: number): { awards: QueuedAward[] } => ({
    awards: Array.from({ length: 100 }, (_, k) => ({ questId: 'bench', idempotencyKey: crypto.randomUUID(), ...award(users === 1 ? i : k) })),
  });
  const onePlayer = await freshRelay();
  const onePlayerPerSec = await perSecond(BATCHES, 100, async (i) =>
    onePlayer.fetch(post(`http://relay.local${paths.batch()}`, { authorization: `Bearer ${tokenOf(i)}` }, batchOf(i, 1))),
  );
  const manyUsers = await freshRelay();
  const manyUsersPerSec = await perSecond(BATCHES, 100, async (i) =>
    manyUsers.fetch(post(`http://relay.local${paths.batch()}`, { authorization: `Bearer ${admin}` }, batchOf(i, USERS))),
  );

  return {
    upstream: 'emulator in its own process, over loopback HTTP (baseline and relay alike)',
    'emulator direct awards/s (baseline)': Math.round(directPerSec),
    'relay -> emulator awards/s': Math.round(relayPerSec),
    'relay / direct (single awards)': Number((relayPerSec / directPerSec).toFixed(2)),
    'relay batch-100 awards/s, one player': Math.round(onePlayerPerSec),
    'relay batch-100 / direct, one player': Number((onePlayerPerSec / directPerSec).toFixed(2)),
    'relay batch-100 awards/s, admin over 100 users': Math.round(manyUsersPerSec),
    'relay batch-100 / direct, 100 users': Number((manyUsersPerSec / directPerSec).toFixed(2)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await runRelayBench();
  console.table(Object.entries(results).map(([figure, value]) => ({ figure, value })));
}
