// Figures the docs quote that a test can measure: each is found by a pattern in its page and must equal the
// measurement (bundle sizes are deterministic: esbuild, es2022, gzip -9, bench/lib/bundle.ts). After a change that
// moves one, `npx tsx test/docs/figures.ts --write` rewrites the docs from the measurements.
import { readFileSync, writeFileSync } from 'node:fs';
import { hudBundleSize, sdkBundleSize, swBundleSize } from '../../bench/sdk.bench.js';
import { SDK_TARGET_BYTES } from '../../bench/lib/bundle.js';
import { root } from './snippet-sources.js';

export interface Figure {
  doc: string;
  /** One capture group per value, in order; the text around them stays. */
  pattern: RegExp;
  values: number[];
}

const n = (value: number) => value.toLocaleString('en-US');
const NUM = '([\\d,]+)';

export async function measuredFigures(): Promise<Figure[]> {
  const [sdk, whole, sw, hud] = await Promise.all([sdkBundleSize(), sdkBundleSize(false), swBundleSize(), hudBundleSize()]);
  return [
    {
      doc: 'docs/sdk.md',
      pattern: new RegExp(`\`quest-points/sw.js\` is ${NUM} B minified, \\*\\*${NUM} B min\\+gzip\\*\\*`),
      values: [sw.min, sw.gzip],
    },
    {
      doc: 'docs/sdk.md',
      pattern: new RegExp(`${NUM} B up front, within the target by ${NUM} B\\*\\*, plus ${NUM} B loaded`),
      values: [sdk.gzip, SDK_TARGET_BYTES - sdk.gzip, sdk.lazyGzip],
    },
    {
      doc: 'docs/sdk.md',
      pattern: new RegExp(`the whole as one file: ${NUM} B\\)`),
      values: [whole.gzip],
    },
    {
      doc: 'docs/sdk.md',
      pattern: new RegExp(`Up front, minified:\\s+${NUM} B, of which eventemitter3 ${NUM} B, idb-keyval ${NUM} B and the SDK ${NUM} B`),
      values: [sdk.min, sdk.packages.eventemitter3 ?? 0, sdk.packages['idb-keyval'] ?? 0, sdk.packages['quest-points'] ?? 0],
    },
    {
      doc: 'docs/hud.md',
      pattern: new RegExp(`\\*\\*Size\\*\\*: ${NUM} B min\\+gzip added to a game bundle that already has the SDK \\(${NUM} B minified`),
      values: [hud.withHud.gzip - hud.sdk.gzip, hud.alone.min],
    },
    // BENCHMARKS.md's current table.
    {
      doc: 'BENCHMARKS.md',
      pattern: new RegExp(`\\| SDK entry \\(\`quest-points\`\\), up front, min\\+gzip \\| ${NUM} B \\(\\+${NUM} B on first`),
      values: [sdk.gzip, sdk.lazyGzip],
    },
    { doc: 'BENCHMARKS.md', pattern: new RegExp(`\\| \`quest-points/sw.js\`, min\\+gzip \\| ${NUM} B \\|`), values: [sw.gzip] },
    {
      doc: 'BENCHMARKS.md',
      pattern: new RegExp(`\\| \`quest-points/hud\` added to the SDK, min\\+gzip \\| ${NUM} B \\|`),
      values: [hud.withHud.gzip - hud.sdk.gzip],
    },
  ];
}

/** Each figure as the docs say it and as measured: `said` undefined when the pattern is not found. */
export function compare(figures: Figure[]) {
  return figures.map((figure) => {
    const match = readFileSync(root + figure.doc, 'utf8').match(figure.pattern);
    return { ...figure, said: match?.slice(1).map((s) => Number(s.replaceAll(',', ''))), measured: figure.values };
  });
}

export function write(figures: Figure[]): void {
  for (const figure of figures) {
    let text = readFileSync(root + figure.doc, 'utf8');
    // The 'd' flag gives each capture's place: replace them from the last, so earlier places stay valid.
    const match = new RegExp(figure.pattern.source, 'd').exec(text);
    if (!match?.indices) throw new Error(`${figure.doc}: ${figure.pattern} not found`);
    for (let k = figure.values.length; k >= 1; k--) {
      const [start, end] = match.indices[k]!;
      text = text.slice(0, start) + n(figure.values[k - 1]!) + text.slice(end);
    }
    writeFileSync(root + figure.doc, text);
  }
}

if (process.argv[1]?.endsWith('figures.ts') && process.argv.includes('--write')) {
  const figures = await measuredFigures();
  write(figures);
  console.log(
    compare(figures)
      .map((f) => `${f.doc}: ${f.measured.map(n).join(', ')}`)
      .join('\n'),
  );
}
