// npm run bench:limiter — the memory counter store under many live keys: the time to count 10,000 NEW keys
// (the attacker's case: every request from a fresh IP or player) and 10,000 hits on keys it already holds, once the
// store holds 10k / 50k / 100k live windows; then the relay's RSS after 100,000 distinct players awarded once each.
// A benchmark, not a test: it prints figures.
import { createMemoryCounterStore } from '../src/relay/counter-store.js';

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

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`memory counter store, ${BATCH.toLocaleString('en')} hits per figure (ms)`);
  console.log('live keys | 10k new keys | 10k hits on live keys');
  for (const live of [10_000, 50_000, 100_000]) {
    const figures = await limiterFigures(live);
    console.log(`${live.toLocaleString('en').padStart(9)} | ${String(figures.newKeysMs).padStart(12)} | ${String(figures.knownKeysMs).padStart(21)}`);
  }
}
