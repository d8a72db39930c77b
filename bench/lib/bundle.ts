// Figure 1: what a game ships. esbuild (browser, esm, minify, tree-shaking) then gzip level 9, as a CDN would serve it.
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * The SDK entry's target, min+gzip with every dependency, as a page loads it up front: 14 KB with a stable ofetch.
 * Met since issue 30's size work (13,734 B): the HTTP layer (http.ts with ofetch, ufo and destr) loads on the first
 * request, not with the page (docs/sdk.md, "The stack, and size").
 */
export const SDK_TARGET_BYTES = 14 * 1024;
/**
 * What test/client/size.test.ts holds, so growth is caught. Lower it as the entry shrinks; raising it needs a reason.
 * History: 15.5 KB while ofetch 1.x was up front (15,821 B measured on a0b4a06). Raised to 16.6 KB by issue 30
 * (16,926 B measured): the client's state behind one dispatch, the outbox's journal and mirror as modules, isolated
 * watchers and subscribers, pairs released after their last watch, and awards settled unheard. Raised to 17.7 KB by
 * issue 28 (17,980 B with issue 30 merged: +1,054 B): the client's `environment`, `persisted` on every award:* event,
 * the token rule's up-front part, the reopening of closed IndexedDB connections, keys without crypto.randomUUID.
 * Lowered to 13.5 KB by issue 30's size work (18,032 B -> 13,734 B): the HTTP layer loads on the first request
 * (-4,200 B), the IndexedDB lease only where Web Locks are missing and the rescue merge only when a rescue was found
 * (-90 B), `persisted` kept beside `settled` in one map (-64 B) (BENCHMARKS.md, "Issue 30, size").
 * Raised to 13.6 KB by issue 34 (13,732 B -> 13,831 B): the held queue (deployment:refused, its state, the retry that
 * carries the refusal) and the loader of the start-up migration of deployment dead letters. The whose-refusal rule
 * itself (protocol/status.ts answerHandling, refusal.ts) loads with the HTTP layer, not up front (it was +490 B there).
 * Then 13.8 KB (14,089 B with main merged on 2026-11-27): the client's state as typed actions into one reducer, which
 * decides `online` alone and derives `storage` from the environment (+204 B), and a drain that stops on a lost lease.
 * Main then grew to 14,428 B (awards of their player, the rescue's forget...); back to 14,031 B when the sending and its
 * reading of the answers (client/send-awards.ts) moved to a chunk loaded with the first send (-397 B). Then 13.9 KB
 * (14,135 B): the sending chunk fetched with the HTTP layer (an offline first send was a failed fetch) and the outbox
 * telling the page when a reload finds awards gone (found by the model, +90 B). Still under the 14 KB target.
 * Then 14 KB, the target itself (14,134 B -> 14,303 B, issue 37): the stored-format contract (client/format.ts), its
 * reads of every store and of the rescues leaving a record of a newer format where it is, reported once (the console
 * and an `error` event). Format 1 is written without a `v` (stamping every record cost 49 B more). 14,332 B once
 * issue 35's onceKey joined (2026-11-27): 4 B under the target.
 */
export const SDK_BUDGET_BYTES = 14 * 1024;

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface BundleSize {
  /** Minified bytes a page loads up front: the entry chunk and what it imports statically. */
  min: number;
  /** Those bytes minified then gzipped (level 9) as one file, as a game's bundler would merge them into its own. */
  gzip: number;
  /** Minified bytes each npm package contributes to the up-front part (esbuild metafile). */
  packages: Record<string, number>;
  /**
   * What loads on first use (the SDK's `import()` of account.ts): minified then gzipped bytes of those chunks. A
   * game's bundler (Vite, webpack, esbuild with splitting) emits them as separate files fetched only when called.
   */
  lazyGzip: number;
}

const common: BuildOptions = {
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  minify: true,
  treeShaking: true,
  write: false,
  metafile: true,
  logLevel: 'silent',
  absWorkingDir: repoRoot,
};

/**
 * Bundle one entry (a file, or `contents` standing for one) and measure it: with `split`, dynamic imports are split
 * off and counted apart (what a page loads up front); without, everything is one file (the whole, to compare SDKs
 * whose up-front parts are cut differently). `plugins`: as a build script adds them (scripts/inline-lazy.mjs).
 */
export async function measureBundle(
  entry: { file: string } | { contents: string },
  external: string[] = [],
  split = true,
  plugins: Plugin[] = [],
): Promise<BundleSize> {
  const result = await build({
    ...common,
    external,
    plugins,
    splitting: split,
    outdir: 'measure-out',
    ...('file' in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.contents, resolveDir: repoRoot, loader: 'ts' } }),
  });
  const outputs = result.metafile!.outputs;
  // The entry's own output: with splitting, each import()ed chunk names an entryPoint too (the first one found was a
  // lazy chunk once retry-dead.ts came: the SDK measured 747 B).
  const wanted = 'file' in entry ? entry.file : '<stdin>';
  const start = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === wanted)!;
  // The up-front part: the entry and, transitively, its static imports (chunks it shares with a lazy chunk).
  const upFront = new Set<string>();
  const visit = (file: string) => {
    if (upFront.has(file)) return;
    upFront.add(file);
    for (const imported of outputs[file]!.imports) if (imported.kind === 'import-statement' && imported.path in outputs) visit(imported.path);
  };
  visit(start);
  const code = (files: string[]) =>
    Buffer.concat(result.outputFiles!.filter((out) => files.includes(relativeOut(out.path))).map((out) => out.contents));
  const initial = code([...upFront]);
  const lazy = code(Object.keys(outputs).filter((file) => !upFront.has(file) && file.endsWith('.js')));
  return {
    min: initial.byteLength,
    gzip: gzipSync(initial, { level: 9 }).byteLength,
    packages: packageShares(result.metafile!, upFront),
    lazyGzip: lazy.byteLength ? gzipSync(lazy, { level: 9 }).byteLength : 0,
  };
}

/** An output file's path as the metafile names it (relative to the working directory). */
const relativeOut = (path: string) => path.slice(repoRoot.length);

function packageShares(metafile: Metafile, files: Set<string>): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const output of Object.entries(metafile.outputs).flatMap(([file, output]) => (files.has(file) ? [output] : [])))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'quest-points';
      shares[name] = (shares[name] ?? 0) + bytesInOutput;
    }
  return shares;
}

/** The browser bundle of a page script (the benchmark page), not minified so stack traces stay readable. */
export async function bundlePage(file: string): Promise<string> {
  const result = await build({ ...common, entryPoints: [file], minify: false, metafile: false });
  return result.outputFiles![0]!.text;
}
