// npm run bench [-- --quick] [-- --only=bundle,browser,relay,faces]: every figure of the benchmark issue in one
// table, printed and written to bench/results/bench.json. QP_BENCH_QUICK=1 is the same as --quick (small sizes, for
// the smoke test). Figures 2 and 6 run in real Chromium, 3-5 against the relay, a bare proxy, the emulator and
// redis-server as their own processes; see BENCHMARKS.md for what each baseline stands for.
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { runBrowserBench, type BrowserSizes } from './browser/run-browser.js';
import { measureBundle, repoRoot, SDK_TARGET_BYTES } from './lib/bundle.js';
import { formatMarkdown, formatTable, row, type Row } from './lib/table.js';
import { FULL_LOAD, QUICK_LOAD, runRelayLoadBench } from './relay-load.bench.js';

/** faces (the relay's, emulator's and SDK's own small benchmarks, figure 8) runs only when asked for. */
export const SECTIONS = ['bundle', 'browser', 'relay', 'faces'] as const;
export type Section = (typeof SECTIONS)[number];
const DEFAULT_SECTIONS: readonly Section[] = ['bundle', 'browser', 'relay'];

export interface BenchOptions {
  quick?: boolean;
  only?: readonly Section[];
  /** Where bench.json goes; default bench/results/. */
  outDir?: string;
  log?: (line: string) => void;
  /** Figure 8's sources; default FACES. */
  faces?: readonly FaceBench[];
}

export interface BenchReport {
  date: string;
  quick: boolean;
  machine: { cpus: number; memoryGiB: number; node: string; platform: string; loadAverageAtStart: number; loadAverageAtEnd?: number };
  environment: Record<string, string | number | boolean>;
  rows: Row[];
  /** Figures that could not be gathered (a face's benchmark missing or failing), with the reason. */
  skipped: string[];
}

export const FULL: BrowserSizes = { queued: [0, 1_000, 10_000], samples: 1_000, perTask: 4, burst: 10_000, burstRepeats: 3, frameSeconds: 10 };
export const QUICK: BrowserSizes = { queued: [0, 100, 1_000], samples: 100, perTask: 4, burst: 300, burstRepeats: 1, frameSeconds: 1.5 };

/**
 * Figure 1's peers: what a game would ship instead, each entry bundled the same way as ours. workbox's Queue is an
 * offline request queue only; the other three are full SDKs (with gameanalytics' own event store, Segment's
 * localStorage-backed retry queue, Sentry's IndexedDB offline transport), so the 0.6x target is taken against the
 * smallest of those three.
 */
export const PEERS: { name: string; entry: string; full: boolean; note: string }[] = [
  {
    name: 'workbox-background-sync Queue',
    entry: `export { Queue } from 'workbox-background-sync';`,
    full: false,
    note: 'a request queue for a service worker, not an SDK',
  },
  { name: 'gameanalytics', entry: `export { GameAnalytics } from 'gameanalytics';`, full: true, note: 'the GameAnalytics JS SDK' },
  {
    name: '@segment/analytics-next',
    entry: `export { AnalyticsBrowser } from '@segment/analytics-next';`,
    full: true,
    note: 'AnalyticsBrowser, its lazy chunks included',
  },
  {
    name: '@sentry/browser + offline transport',
    entry: `export { init, makeBrowserOfflineTransport, makeFetchTransport } from '@sentry/browser';`,
    full: true,
    note: 'init with makeBrowserOfflineTransport(makeFetchTransport)',
  },
];

const version = (name: string) => (createRequire(import.meta.url)(`${name.split(' ')[0]}/package.json`) as { version: string }).version;

async function bundleRows(): Promise<Row[]> {
  const sdk = await measureBundle({ file: 'src/client/index.ts' });
  // Phaser is a peer dependency: the game already ships it.
  const phaser = await measureBundle({ file: 'src/phaser/index.ts' }, ['phaser']);
  // Peers lazy-load differently (some fetch most of themselves at init): each SDK is compared whole, one file.
  const whole = await measureBundle({ file: 'src/client/index.ts' }, [], false);
  const peers = [];
  for (const peer of PEERS) peers.push({ ...peer, size: await measureBundle({ contents: peer.entry }, [], false) });
  const smallest = peers.filter((p) => p.full).sort((a, b) => a.size.gzip - b.size.gzip)[0]!;
  const shares = Object.entries(sdk.packages)
    .map(([name, bytes]) => `${name} ${bytes.toLocaleString('en-US')}`)
    .join(', ');
  return [
    row({
      section: '1',
      figure: 'quest-points (SDK entry, all dependencies, up front) min+gzip vs target',
      unit: 'B',
      ours: sdk.gzip,
      baseline: SDK_TARGET_BYTES,
      ratio: sdk.gzip / SDK_TARGET_BYTES,
      target: '<= 14 KB target',
      pass: sdk.gzip <= SDK_TARGET_BYTES,
      note: `${sdk.min.toLocaleString('en-US')} B minified; minified bytes by package: ${shares}; loaded on the first identify/enrollment call: ${sdk.lazyGzip.toLocaleString('en-US')} B min+gzip`,
    }),
    row({
      section: '1',
      figure: `quest-points vs the smallest full SDK (${smallest.name})`,
      unit: 'B',
      ours: whole.gzip,
      baseline: smallest.size.gzip,
      ratio: whole.gzip / smallest.size.gzip,
      target: '<= 0.6x',
      pass: whole.gzip / smallest.size.gzip <= 0.6,
      note: 'each SDK whole, lazy chunks included',
    }),
    ...peers.map((p) =>
      row({
        section: '1',
        figure: `peer: ${p.name} ${version(p.name)} min+gzip`,
        unit: 'B',
        ours: whole.gzip,
        baseline: p.size.gzip,
        ratio: whole.gzip / p.size.gzip,
        target: 'info',
        note: `${p.note}; ${p.size.min.toLocaleString('en-US')} B minified`,
      }),
    ),
    row({
      section: '1',
      figure: 'quest-points/phaser min+gzip (phaser external)',
      unit: 'B',
      ours: phaser.gzip,
      target: 'info',
      note: `${phaser.min} B minified`,
    }),
  ];
}

export interface FaceBench {
  name: string;
  /** Resolves the module holding the benchmark (a dynamic import: a face's bench may be missing or broken). */
  load: () => Promise<Record<string, unknown>>;
  fn: string;
}

/**
 * The other helpers' benchmarks, imported by a computed path at run time: one missing or broken file is reported
 * as not measured instead of breaking the run (or the typecheck).
 */
export const FACES: FaceBench[] = [
  { name: 'sdk', load: () => import(String('./sdk.bench.js')), fn: 'runSdkBench' },
  { name: 'relay', load: () => import(String('./relay.bench.js')), fn: 'runRelayBench' },
  { name: 'emulator', load: () => import(String('./emulator.bench.js')), fn: 'runEmulatorBench' },
];

/** Figure 8: the relay's and the emulator's own benchmarks, as info rows; a face that fails is listed in `skipped`. */
export async function faceRows(faces: readonly FaceBench[], skipped: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const face of faces) {
    let results: Record<string, unknown>;
    try {
      const run = (await face.load())[face.fn];
      if (typeof run !== 'function') throw new Error(`bench/${face.name}.bench.ts exports no ${face.fn}()`);
      results = await run();
    } catch (error) {
      skipped.push(`${face.name}: ${(error as Error).message}`);
      continue;
    }
    const notes = Object.entries(results)
      .filter(([, v]) => typeof v !== 'number')
      .map(([k, v]) => `${k}: ${String(v)}`);
    const numbers = Object.entries(results).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]));
    for (const [i, [figure, value]] of numbers.entries()) {
      rows.push(
        row({
          section: '8',
          figure: `${face.name}: ${figure}`,
          unit: '',
          ours: value,
          target: 'info',
          ...(i === 0 && notes.length ? { note: notes.join('; ') } : {}),
        }),
      );
    }
  }
  return rows;
}

export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const { quick = false, only = DEFAULT_SECTIONS, log = () => {} } = options;
  const report: BenchReport = {
    date: new Date().toISOString(),
    quick,
    machine: {
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageAtStart: Number(loadavg()[0]!.toFixed(2)),
    },
    environment: {},
    rows: [],
    skipped: [],
  };
  if (only.includes('bundle')) {
    log('bundle sizes');
    report.rows.push(...(await bundleRows()));
  }
  if (only.includes('browser')) {
    const browser = await runBrowserBench(quick ? QUICK : FULL, log);
    report.rows.push(...browser.rows);
    Object.assign(report.environment, browser.environment);
  }
  if (only.includes('relay')) {
    const relay = await runRelayLoadBench(quick ? QUICK_LOAD : FULL_LOAD, log);
    report.rows.push(...relay.rows);
    Object.assign(report.environment, relay.environment);
  }
  if (only.includes('faces')) {
    log('relay and emulator benchmarks');
    report.rows.push(...(await faceRows(options.faces ?? FACES, report.skipped)));
  }
  // Gathered in the order that keeps the machine's work apart; shown in the order.
  report.rows.sort((a, b) => Number(a.section) - Number(b.section));
  // The machine may be shared: the 1-minute load average says how quiet it was.
  report.machine.loadAverageAtEnd = Number(loadavg()[0]!.toFixed(2));
  const outDir = options.outDir ?? join(repoRoot, 'bench', 'results');
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(outDir, 'bench.md'), `${formatMarkdown(report.rows)}\n`);
  return report;
}

function parseArgs(argv: string[]): BenchOptions {
  const only = argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const unknown = only?.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown?.length) throw new Error(`--only: unknown section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
  return { quick: argv.includes('--quick') || process.env.QP_BENCH_QUICK === '1', ...(only ? { only: only as Section[] } : {}) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const report = await runBench({ ...options, log: (line) => console.error(`… ${line}`) });
  console.log(formatTable(report.rows));
  for (const line of report.skipped) console.log(`not measured: ${line}`);
  console.log(`\nwritten to bench/results/bench.json and bench.md (${report.quick ? 'quick' : 'full'} run)`);
}
