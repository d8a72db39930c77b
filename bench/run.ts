// npm run bench [-- --quick] [-- --only=bundle,browser,faces]: every figure of the benchmark issue in one table,
// printed and written to bench/results/bench.json. QP_BENCH_QUICK=1 is the same as --quick (small sizes, for the
// smoke test). Figures 2-5 run in real Chromium; see BENCHMARKS.md for what each baseline stands for.
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { runBrowserBench, type BrowserSizes } from './browser/run-browser.js';
import { measureBundle, repoRoot } from './lib/bundle.js';
import { formatMarkdown, formatTable, row, type Row } from './lib/table.js';

export const SECTIONS = ['bundle', 'browser', 'faces'] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  quick?: boolean;
  only?: readonly Section[];
  /** Where bench.json goes; default bench/results/. */
  outDir?: string;
  log?: (line: string) => void;
  /** Figure 6's sources; default FACES. */
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

const BUDGET_BYTES = 8 * 1024;
/**
 * The design's browser dependencies, measured alone (whole package) for context: the SDK does without them for the
 * budget (ofetch, 4.1 KB gzipped alone, is no longer installed at all).
 */
const DEPENDENCIES = ['valibot', 'idb-keyval', 'eventemitter3'];

async function bundleRows(): Promise<Row[]> {
  const sdk = await measureBundle({ file: 'src/client/index.ts' });
  // Phaser is a peer dependency: the game already ships it.
  const phaser = await measureBundle({ file: 'src/phaser/index.ts' }, ['phaser']);
  const rows = [
    row({ section: '1', figure: 'quest-points (SDK) min+gzip', unit: 'B', ours: sdk.gzip, baseline: BUDGET_BYTES, ratio: sdk.gzip / BUDGET_BYTES, target: '<= 8 KB budget (ratio <= 1)', pass: sdk.gzip <= BUDGET_BYTES, note: `${sdk.min} B minified` }),
    row({ section: '1', figure: 'quest-points/phaser min+gzip (phaser external)', unit: 'B', ours: phaser.gzip, baseline: BUDGET_BYTES, ratio: phaser.gzip / BUDGET_BYTES, target: 'info', note: `${phaser.min} B minified` }),
  ];
  for (const name of DEPENDENCIES) {
    const alone = await measureBundle({ contents: `export * from '${name}';` });
    const share = sdk.packages[name] ?? 0;
    rows.push(row({ section: '1', figure: `${name} alone (whole package) min+gzip`, unit: 'B', ours: alone.gzip, target: 'info', note: share ? `${share} B minified of it inside the SDK bundle` : 'not in the SDK bundle (the SDK does without it)' }));
  }
  return rows;
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

/** Figure 6: the relay's and the emulator's own benchmarks, as info rows; a face that fails is listed in `skipped`. */
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
    const notes = Object.entries(results).filter(([, v]) => typeof v !== 'number').map(([k, v]) => `${k}: ${String(v)}`);
    const numbers = Object.entries(results).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]));
    numbers.forEach(([figure, value], i) =>
      rows.push(row({ section: '6', figure: `${face.name}: ${figure}`, unit: '', ours: value, target: 'info', ...(i === 0 && notes.length ? { note: notes.join('; ') } : {}) })),
    );
  }
  return rows;
}

export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const { quick = false, only = SECTIONS, log = () => {} } = options;
  const report: BenchReport = {
    date: new Date().toISOString(),
    quick,
    machine: { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}`, loadAverageAtStart: Number(loadavg()[0]!.toFixed(2)) },
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
  if (only.includes('faces')) {
    log('relay and emulator benchmarks');
    report.rows.push(...(await faceRows(options.faces ?? FACES, report.skipped)));
  }
  // The machine may be shared: the 1-minute load average says how quiet it was.
  report.machine.loadAverageAtEnd = Number(loadavg()[0]!.toFixed(2));
  const outDir = options.outDir ?? join(repoRoot, 'bench', 'results');
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'bench.json'), JSON.stringify(report, null, 2) + '\n');
  await writeFile(join(outDir, 'bench.md'), formatMarkdown(report.rows) + '\n');
  return report;
}

function parseArgs(argv: string[]): BenchOptions {
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
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
