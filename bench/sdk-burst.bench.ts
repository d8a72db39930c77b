// Figure 7 alone, for `npm run bench:sdk`: a burst of award() calls until every award is durable in IndexedDB, in
// real Chromium, against the floor (the same records in one idb-keyval setMany, no SDK) in the same run, the two
// alternating so machine load falls on both alike. The ratio is what the SDK adds over IndexedDB itself.
import { launchChromium } from '../test/helpers/chromium.js';
import { BENCH_PLAYER, startBenchServer } from './browser/server.js';
import { median } from './lib/stats.js';

export interface BurstResult {
  awards: number;
  repeats: number;
  oursMs: number;
  floorMs: number;
  /** ours / floor: 1.0 is IndexedDB's own cost. */
  ratio: number;
  issuedMs: number;
}

export async function runBurstBench(awards = 10_000, repeats = 5): Promise<BurstResult> {
  const server = await startBenchServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => 'qpBench' in globalThis);
    const call = <T>(name: string, arg?: unknown) =>
      page.evaluate(([n, a]) => (globalThis as unknown as { qpBench: Record<string, (arg: unknown) => unknown> }).qpBench[n]!(a), [
        name,
        arg,
      ] as const) as Promise<T>;
    await call('configure', { token: server.token, serviceUserId: BENCH_PLAYER });
    const ours: number[] = [];
    const floor: number[] = [];
    const issued: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const burst = await call<{ ms: number; issuedMs: number }>('burst', { count: awards, questId: 'bench-burst', label: `sdk-${i}`, keep: false });
      ours.push(burst.ms);
      issued.push(burst.issuedMs);
      floor.push((await call<{ ms: number }>('floorBurst', { count: awards, questId: 'bench-floor', label: `sdk-${i}` })).ms);
    }
    const oursMs = median(ours);
    const floorMs = median(floor);
    return { awards, repeats, oursMs, floorMs, ratio: oursMs / floorMs, issuedMs: median(issued) };
  } finally {
    await browser.close();
    await server.close();
  }
}
