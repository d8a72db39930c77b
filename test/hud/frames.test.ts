// 60 fps with the HUD: a busy canvas page awarding once a frame, 10 s with <quest-points-hud> over the canvas and
// 10 s without it (three times), alternating every half-second in the same page (the machine is shared: only a
// baseline measured alongside means anything).
// A frame "over 16.7 ms" is a rAF interval above one 60 Hz vsync (with 2 ms of timer slack): a missed frame.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { uniqueId, setupBrowserStack } from '../browser/harness.js';
import type { HudPage } from './pages/hud-page.js';

const inContext = setupBrowserStack({ hud: fileURLToPath(new URL('pages/hud-page.ts', import.meta.url)) });

const RUN_MS = 10_000;
const SLICE_MS = 500;
const ROUNDS = 3;
/** As the page leaves out after each switch (pages/hud-page.ts). */
const SETTLE_FRAMES = 3;
const SLOW_MS = 16.7 + 2;

interface Figures {
  frames: number;
  /** Intervals above 16.7 ms exactly (vsync jitter of a tenth of a millisecond included). */
  over: number;
  slow: number;
  slowShare: number;
  p99: number;
}

function figures(deltas: number[]): Figures {
  const sorted = [...deltas].sort((a, b) => a - b);
  const slow = deltas.filter((d) => d > SLOW_MS).length;
  return {
    frames: deltas.length,
    over: deltas.filter((d) => d > 16.7).length,
    slow,
    slowShare: slow / deltas.length,
    p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
  };
}

const show = (f: Figures) =>
  `${f.frames} frames, ${f.slow} missed (${(f.slowShare * 100).toFixed(2)} %; ${f.over} intervals > 16.7 ms exactly), p99 ${f.p99.toFixed(1)} ms`;

describe('<quest-points-hud> frame budget', () => {
  it(
    'awards every frame, 3 × 10 s with the HUD and 3 × 10 s without in alternating half-seconds: frames over 16.7 ms at most the baseline’s + 1 point',
    { timeout: 180_000 },
    () =>
      inContext(async (stack, context) => {
        const page = await context.newPage();
        await page.goto(`${stack.origin}/hud.html?sub=${uniqueId('frames')}&frames=1&history=5`);
        await page.waitForFunction(() => 'hudPage' in window, undefined, { timeout: 10_000 });
        // One second of awards first, unmeasured: the page's first IndexedDB writes and token fetch.
        await page.evaluate(() => (window as unknown as { hudPage: HudPage }).hudPage.awardEveryFrame(1000));
        // Interleaved in one page: whatever else the shared machine does lands on both sides alike. A missed frame is
        // a rare event (a handful in 600 frames), so one 10 s round per side is mostly counting noise: ROUNDS rounds,
        // each reported, and the verdict on the rounds pooled.
        const pooled = { hud: [] as number[], none: [] as number[] };
        for (let round = 1; round <= ROUNDS; round++) {
          const { hud, none, switches } = await page.evaluate(
            ([slice, count]) => (window as unknown as { hudPage: HudPage }).hudPage.interleave(slice, count),
            [SLICE_MS, RUN_MS / SLICE_MS] as const,
          );
          pooled.hud.push(...hud);
          pooled.none.push(...none);
          console.info(
            `[hud frames] round ${round}: baseline ${show(figures(none))}; with HUD ${show(figures(hud))}; ` +
              `the ${SETTLE_FRAMES} frames after each of the ${(RUN_MS / SLICE_MS) * 2} switches (left out of both): ${show(figures(switches))}`,
          );
        }
        const withHud = figures(pooled.hud);
        const baseline = figures(pooled.none);
        expect(await page.evaluate(() => (window as unknown as { hudPage: HudPage }).hudPage.hud!.total)).toBeGreaterThan(
          pooled.hud.length + pooled.none.length,
        );
        console.info(`[hud frames] pooled: baseline ${show(baseline)}\n[hud frames] pooled: with HUD ${show(withHud)}`);
        expect(withHud.frames).toBeGreaterThan(ROUNDS * (RUN_MS / 1000) * 30);
        expect(withHud.slowShare).toBeLessThanOrEqual(baseline.slowShare + 0.01);
      }),
  );
});
