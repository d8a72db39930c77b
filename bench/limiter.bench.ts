// npm run bench:limiter — the memory counter store under many live keys: the time to count 10,000 NEW keys
// (the attacker's case: every request from a fresh IP or player) and 10,000 hits on keys it already holds, once the
// store holds 10k / 50k / 100k live windows; then the relay's RSS after 100,000 distinct players awarded once each.
// A benchmark, not a test: it prints figures. Run with --expose-gc for the heap figure (npm run bench:limiter does).
import { createMemoryCounterStore } from '../src/relay/counter-store.js';
import { createRelay, signPlayerToken } from '../src/relay/index.js';

const WINDOW_MS = 60_000;
const BATCH = 10_000;

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return Math.round((performance.now() - started) * 10) / 10;
}

export async function limiterFigures(live: number): Promise<{ live: number; newKeysMs: number; knownKeysMs: number }> {
  const store = createMemoryCounterStore();
  for (let i = 0; i < live; i++) await store.increment(`live:${i}`, WINDOW_MS);
  const newKeysMs = await timed(async () => {
    for (let i = 0; i < BATCH; i++) await store.increment(`new:${i}`, WINDOW_MS);
  });
  const knownKeysMs = await timed(async () => {
    for (let i = 0; i < BATCH; i++) await store.increment(`live:${(i * 7) % live}`, WINDOW_MS);
  });
  return { live, newKeysMs, knownKeysMs };
}

const SECRET = 'bench-relay-secret-0123456789abcdef0123';
/** Names upstream idempotency keys (never rotates). */
const KEY_SECRET = 'bench-key-secret-fedcba9876543210fedcba98';
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * The relay (default policy: per-player and per-IP limits, memory store) after `players` distinct players awarded
 * once each, in-process with an upstream that answers at once: RSS before and after, and heap after a GC.
 */
export async function rssAfterPlayers(players: number) {
  const gc = (globalThis as { gc?: () => void }).gc;
  const relay = createRelay({
    secret: SECRET,
    keySecret: KEY_SECRET,
    logger: () => undefined,
    upstream: { url: 'http://service.bench', apiKey: 'bench-api-key-0123456789', fetch: async () => Response.json({ success: true }) },
    policy: {
      allowUnknownEvents: true,
      rateLimits: { perPlayer: { limit: 60, windowSeconds: 60 }, perIp: { limit: 10_000_000, windowSeconds: 60 } },
    },
  });
  gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  for (let i = 0; i < players; i++) {
    const sub = `player-${i}`;
    const token = await signPlayerToken({ sub }, { secret: SECRET });
    const response = await relay.fetch(
      new Request('http://relay.bench/group-quests/q1/points', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: sub, eventPoints: 1 }),
      }),
    );
    if (response.status !== 200) throw new Error(`player ${i}: ${response.status} ${await response.text()}`);
  }
  const seconds = (performance.now() - started) / 1000;
  gc?.();
  const after = process.memoryUsage();
  return {
    players,
    rssBeforeMb: mb(before.rss),
    rssAfterMb: mb(after.rss),
    heapBeforeMb: mb(before.heapUsed),
    heapAfterMb: mb(after.heapUsed),
    seconds: Math.round(seconds * 10) / 10,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`memory counter store, ${BATCH.toLocaleString('en')} hits per figure (ms)`);
  console.log('live keys | 10k new keys | 10k hits on live keys');
  for (const live of [10_000, 50_000, 100_000]) {
    const figures = await limiterFigures(live);
    console.log(`${live.toLocaleString('en').padStart(9)} | ${String(figures.newKeysMs).padStart(12)} | ${String(figures.knownKeysMs).padStart(21)}`);
  }
  const rss = await rssAfterPlayers(100_000);
  console.log(
    `relay after ${rss.players.toLocaleString('en')} distinct players (one award each, in-process, ${rss.seconds} s): ` +
      `RSS ${rss.rssBeforeMb} MB -> ${rss.rssAfterMb} MB, heap after GC ${rss.heapBeforeMb} MB -> ${rss.heapAfterMb} MB`,
  );
}
