import { tidy } from './stats.js';

export type Verdict = 'pass' | 'miss' | 'info';

/** One line of the benchmark table (and of bench/results/bench.json). */
export interface Row {
  /** Which of the issue's figures (1-6) this row belongs to. */
  section: string;
  figure: string;
  unit: string;
  ours: number;
  /** What ours is compared with (see BENCHMARKS.md for what each baseline stands for); null when none. */
  baseline: number | null;
  /** The comparison the target is stated in (e.g. baseline / ours); null when there is none. */
  ratio: number | null;
  target: string;
  verdict: Verdict;
  note?: string;
}

export interface RowInput extends Omit<Row, 'ratio' | 'verdict' | 'baseline'> {
  baseline?: number | null;
  ratio?: number | null;
  /** Omitted: the row is informational. */
  pass?: boolean;
}

export function row(input: RowInput): Row {
  const { pass, baseline = null, ratio = null, ...rest } = input;
  return {
    ...rest,
    ours: tidy(rest.ours),
    baseline: baseline === null ? null : tidy(baseline),
    ratio: ratio === null ? null : tidy(ratio),
    verdict: pass === undefined ? 'info' : pass ? 'pass' : 'miss',
  };
}

const show = (value: number | null, unit = '') => (value === null ? '—' : `${value.toLocaleString('en-US')}${unit ? ` ${unit}` : ''}`);

/** The table as fixed-width text for the terminal. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['#', 'figure', 'ours', 'baseline', 'ratio', 'target', 'verdict'];
  const lines = rows.map((r) => [
    r.section,
    r.figure,
    show(r.ours, r.unit),
    show(r.baseline, r.unit),
    r.ratio === null ? '—' : `${r.ratio}x`,
    r.target,
    r.verdict,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt), ...notes(rows, '')].join('\n');
}

/** Each row's note, below the table (a blank line first when there are any). */
function notes(rows: readonly Row[], bullet: string): string[] {
  const lines = rows.filter((r) => r.note).map((r) => `${bullet}${r.figure}: ${r.note}`);
  return lines.length ? ['', ...lines] : [];
}

/** The same table as Markdown, for BENCHMARKS.md. */
export function formatMarkdown(rows: readonly Row[]): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  return [
    '| # | figure | ours | baseline | ratio | target | verdict |',
    '|---|---|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.section} | ${esc(r.figure)} | ${show(r.ours, r.unit)} | ${show(r.baseline, r.unit)} | ${r.ratio === null ? '—' : `${r.ratio}x`} | ${esc(r.target)} | ${r.verdict} |`,
    ),
    ...notes(rows, '- '),
  ].join('\n');
}
