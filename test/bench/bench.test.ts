// The quick share of `npm run bench`, end to end in real Chromium: every row is produced with finite numbers and
// bench.json holds the same table. No assertion on any time: benchmarks report figures, they do not gate CI.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faceRows, runBench, type BenchReport } from '../../bench/run.js';
import { formatMarkdown, formatTable, type Row } from '../../bench/lib/table.js';
import { spawnEmulator } from '../../bench/lib/emulator-process.js';
import { paths } from '../../src/protocol/paths.js';

const finiteOrNull = (value: number | null) => value === null || Number.isFinite(value);

function expectWellFormed(rows: Row[]) {
  for (const r of rows) {
    expect(Number.isFinite(r.ours), `${r.figure}: ours ${r.ours}`).toBe(true);
    expect(finiteOrNull(r.baseline), `${r.figure}: baseline ${r.baseline}`).toBe(true);
    expect(finiteOrNull(r.ratio), `${r.figure}: ratio ${r.ratio}`).toBe(true);
    expect(['pass', 'miss', 'info']).toContain(r.verdict);
    expect(r.target).not.toBe('');
  }
}

describe('npm run bench --quick', () => {
  let dir: string;
  let report: BenchReport;
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('produces every figure of sections 1-7 with finite numbers, and writes them as bench.json', { timeout: 180_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'qp-bench-'));
    report = await runBench({ quick: true, outDir: dir });
    const figures = report.rows.map((r) => r.figure);
    expect(figures).toEqual(
      expect.arrayContaining([
        'quest-points (SDK entry, all dependencies, up front) min+gzip vs target',
        'quest-points vs the smallest full SDK (gameanalytics)',
        'peer: workbox-background-sync Queue 7.4.1 min+gzip',
        'peer: @sentry/browser + offline transport 11.12.0 min+gzip',
        'drain 300 queued awards of one player, relay -> emulator, vs the relay floor',
        'relay vs bare proxy: single awards/s (4 in flight, 10 players)',
        'relay vs bare proxy: single award p99 latency',
        'Redis store vs memory store: cost per award (1 / awards/s, same load)',
        'idempotency record on vs off (Redis): relay process CPU per single award',
        'shared limit (2 per player) held exactly over two relays',
        'relay RSS after 100 distinct players (memory limiter)',
        'emulator RSS per stored award (ledger entry + idempotency entry)',
        'award() median, 0 queued',
        'award() p99, 1,000 queued',
        'burst of 300 awards until durable in IndexedDB',
        'frames over 16.7 ms in 1.5 s, award every frame',
      ]),
    );
    expect(new Set(report.rows.map((r) => r.section))).toEqual(new Set(['1', '2', '3', '4', '5', '6', '7']));
    // The table is in the order.
    expect(report.rows.map((r) => Number(r.section))).toEqual(report.rows.map((r) => Number(r.section)).sort((x, y) => x - y));
    // The shared limit is a correctness figure, not a time: it holds even in the quick run.
    expect(report.rows.find((r) => r.figure.startsWith('shared limit'))?.verdict).toBe('pass');
    expectWellFormed(report.rows);
    // Comparisons that have a baseline carry it: the table is about ours against something.
    for (const r of report.rows.filter((r) => ['2', '3', '6'].includes(r.section))) expect(r.baseline, r.figure).not.toBeNull();
    expect(report.environment.crossOriginIsolated).toBe(true);

    const written = JSON.parse(await readFile(join(dir, 'bench.json'), 'utf8')) as BenchReport;
    expect(written.rows).toEqual(report.rows);
    expect(written.quick).toBe(true);

    const text = formatTable(report.rows);
    const markdown = formatMarkdown(report.rows);
    for (const figure of figures) {
      expect(text).toContain(figure);
      expect(markdown).toContain(figure);
    }
  });
});

describe('figure 8: gathering the faces’ own benchmarks', () => {
  it('turns numbers into rows, strings into notes, and a missing or failing bench into a skipped line', async () => {
    const skipped: string[] = [];
    const rows = await faceRows(
      [
        {
          name: 'relay',
          fn: 'runRelayBench',
          load: async () => ({ runRelayBench: async () => ({ 'awards/s': 1234.5, upstream: 'in-process', bad: Number.NaN }) }),
        },
        { name: 'sdk', fn: 'runSdkBench', load: () => import(String('./no-such.bench.js')) },
        { name: 'emulator', fn: 'runEmulatorBench', load: async () => ({ other: () => ({}) }) },
        { name: 'broken', fn: 'run', load: async () => ({ run: async () => Promise.reject(new Error('boom')) }) },
      ],
      skipped,
    );
    expect(rows).toEqual([
      expect.objectContaining({ section: '8', figure: 'relay: awards/s', ours: 1235, verdict: 'info', note: 'upstream: in-process' }),
    ]);
    expect(skipped).toHaveLength(3);
    expect(skipped[0]).toMatch(/^sdk: /);
    expect(skipped[1]).toBe('emulator: bench/emulator.bench.ts exports no runEmulatorBench()');
    expect(skipped[2]).toBe('broken: boom');
  });
});

describe('the emulator process the bench talks to', () => {
  it('starts from the CLI, reports its ledger over the admin routes, and is gone after close()', { timeout: 60_000 }, async () => {
    const emulator = await spawnEmulator('bench-test-key');
    try {
      const award = await fetch(`${emulator.url}${paths.points('q1')}`, {
        method: 'POST',
        headers: { API_KEY: 'bench-test-key', 'content-type': 'application/json' },
        body: JSON.stringify({ serviceUserId: 'u1', eventPoints: 1, eventName: 'Bench' }),
      });
      expect(award.status).toBe(200);
      expect(await emulator.delivered('q1')).toBe(1);
      expect(await emulator.delivered('q2')).toBe(0);
    } finally {
      await emulator.close();
    }
    // Signal 0 only checks that the pid exists: after close() it must not.
    expect(() => process.kill(emulator.pid, 0)).toThrow();
  });
});
