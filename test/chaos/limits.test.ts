import { describe, expect, it } from 'vitest';
import { judgeLimits, type LimitWindow } from './limits.js';

// The chaos run's limit check on made-up timelines: it must catch what it is there to catch.
const LIMIT = { limit: 3, windowSeconds: 2 };
const window = (sub: string, start: number): LimitWindow => ({ sub, start, end: start + 2_000, hits: 0 });
const at = (sub: string, ...times: number[]) => times.map((t) => ({ sub, at: t }));

describe('judgeLimits', () => {
  it('passes a timeline within the limit per Redis window, and reports the sliding maximum', () => {
    const report = judgeLimits({
      ...LIMIT,
      outages: [],
      windows: [window('a', 0), window('a', 2_000)],
      arrivals: at('a', 10, 20, 1_900, 2_010, 2_020, 2_030),
    });
    expect(report.overLimit).toEqual([]);
    expect([report.maxPerWindow, report.windowsAtLimit, report.maxSliding, report.unattributed]).toEqual([3, 2, 4, 0]);
  });

  it('fails a window over the limit (two relays each granting the full limit would do that)', () => {
    const report = judgeLimits({ ...LIMIT, outages: [], windows: [{ ...window('a', 0), hits: 6 }], arrivals: at('a', 1, 2, 3, 4) });
    expect(report.overLimit).toHaveLength(1);
    // The relays counted 6 sends in it: the limit bound there.
    expect(report.windowsRefusing).toBe(1);
  });

  it("counts awards through a Redis outage apart: uncounted under 'open', a failure under 'closed'", () => {
    const open = judgeLimits({
      ...LIMIT,
      outages: [{ from: 5_000, to: 7_000, mode: 'open' }],
      windows: [window('a', 0)],
      arrivals: at('a', 5_500, 6_000, 6_100, 6_200, 6_300),
    });
    expect(open.overLimit).toEqual([]);
    expect(open.outages[0]!.uncounted).toBe(5);
    const closed = judgeLimits({
      ...LIMIT,
      outages: [{ from: 5_000, to: 7_000, mode: 'closed' }],
      windows: [window('a', 0)],
      arrivals: at('a', 6_000),
    });
    expect(closed.outages[0]!.uncounted).toBe(1);
  });

  it("ends a window at a Redis crash, and reads awards let through just after it as the outage's under 'open'", () => {
    const report = judgeLimits({
      ...LIMIT,
      outages: [{ from: 1_000, to: 2_500, mode: 'open' }],
      windows: [window('a', 0)],
      arrivals: at('a', 10, 20, 30, 1_100, 1_200),
    });
    expect(report.overLimit).toEqual([]);
    expect(report.outages[0]!.overLimitAfter).toBe(2);
    expect(report.maxPerWindow).toBe(3);
  });
});
