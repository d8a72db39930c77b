// 60 fps with the HUD: a busy canvas page awarding once a frame, 10 s with <quest-points-hud> over the canvas and
// 10 s without it, alternating every half-second in the same page (the machine is shared: only a baseline measured
// alongside means anything).
// A frame "over 16.7 ms" is a rAF interval above one 60 Hz vsync (with 2 ms of timer slack): a missed frame.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { uniqueId, useBrowserStack } from '../browser/harness.js';

const inContext = useBrowserStack({ hud: fileURLToPath(new URL('pages/hud-page.ts', import.meta.url)) });

const RUN_MS = 10_000;
const SLICE_MS = 500;
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
  return { frames: deltas.length, over: deltas.filter((d) => d > 16.7).length, slow, slowShare: slow / deltas.length, p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0 };
}

const show = (f: Figures) =>
  `${f.frames} frames, ${f.slow} missed (${(f.slowShare * 100).toFixed(2)} %; ${f.over} intervals > 16.7 ms exactly), p99 ${f.p99.toFixed(1)} ms`;

describe('<quest-points-hud> frame budget', () => {
  it('awards every frame, 10 s with the HUD and 10 s without in alternating half-seconds: frames over 16.7 ms at most the baseline’s + 1 point', { timeout: 120_000 }, () =>
    inContext(async (stack, context) => {
      const page = await context.newPage();
      await page.goto(`${stack.origin}/hud.html?sub=${uniqueId('frames')}&frames=1&history=5`);
      await page.waitForFunction(() => 'hudPage' in window, undefined, { timeout: 10_000 });
      // One second of awards first, unmeasured: the page's first IndexedDB writes and token fetch.
      await page.evaluate(() => (window as any).hudPage.awardEveryFrame(1000));
      // Interleaved in one page: whatever else the shared machine does lands on both sides alike.
      const { hud, none, switches } = await page.evaluate(
        ([slice, count]) => (window as any).hudPage.interleave(slice, count) as Promise<{ hud: number[]; none: number[]; switches: number[] }>,
        [SLICE_MS, RUN_MS / SLICE_MS] as const,
      );
      const withHud = figures(hud);
      const baseline = figures(none);
      expect(await page.evaluate(() => (window as any).hudPage.hud.total)).toBeGreaterThan(hud.length + none.length);
      const attach = switches.filter((_, i) => i % 2 === 0);
      console.info(
        `[hud frames] baseline ${show(baseline)}\n[hud frames] with HUD ${show(withHud)}\n` +
          `[hud frames] the ${attach.length} frames that attached the element (left out of both): median ${attach.sort((a, b) => a - b)[attach.length >> 1]?.toFixed(1)} ms`,
      );
      expect(withHud.frames).toBeGreaterThan((RUN_MS / 1000) * 30);
      expect(withHud.slowShare).toBeLessThanOrEqual(baseline.slowShare + 0.01);
    }));
});
