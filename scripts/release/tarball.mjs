// What the npm tarball must hold and how big it may be: one rule read by the package test (test/package) and by
// `npm run release:dry`, so the two never disagree. `packed` is one entry of `npm pack --json`'s answer.

/**
 * Bounds that catch an accidental inclusion (a demo build, source maps or the tests each add well over 100 KB), not
 * the growth of a feature: 151 KB packed and 477 KB unpacked with the service-worker entries (2026-11-22); 199 KB
 * packed and 618 KB unpacked with the relay's runtimes, auth and the HUD (2026-11-24); 750 KB unpacked with the
 * script-tag build (65 KB) and the PixiJS, Babylon.js and PlayCanvas plugins (37 KB) (2026-11-25); 277 KB packed and
 * 858 KB unpacked with those beside the relay's idempotency record and pipeline and the client's one-writer
 * restructure and environment report (2026-11-25, issues 26, 28, 29 and 30 merged); 323 KB packed and 994 KB unpacked
 * with issue 34's origin rules, refusal codes, Redis Cluster connection, player rule, idempotent dead-letter retry and
 * legacy-letter migration (2026-11-27); 380 KB packed and 1,198 KB unpacked with issue 35's economy (rules, ledger on
 * three stores, reversals, webhooks, admin routes and CLI: 150 KB of dist/relay/economy alone) merged (2026-11-27,
 * found by `npm run release:dry`).
 */
export const PACKAGE_BOUNDS = { packed: 420_000, unpacked: 1_350_000 };

/** Files every tarball holds (the CLI and the SDK's entry with its types stand for the build). */
const REQUIRED = ['LICENSE', 'README.md', 'package.json', 'dist/cli.js', 'dist/client/index.js', 'dist/client/index.d.ts'];

/** Every fault of the tarball, one line each: empty when it ships dist, README and LICENSE only, typed, lean. */
export function tarballProblems(packed, pkg) {
  const paths = packed.files.map((file) => file.path);
  const has = new Set(paths);
  const problems = REQUIRED.filter((path) => !has.has(path)).map((path) => `missing ${path}`);
  // Nothing but compiled JavaScript and its declarations under dist/ (no source maps, no sources, no demo build).
  for (const path of paths)
    if (!/^dist\/.+\.(js|d\.ts)$/.test(path) && !['LICENSE', 'README.md', 'package.json'].includes(path)) problems.push(`unexpected ${path}`);
  for (const path of paths.filter((p) => p.startsWith('dist/demo/'))) problems.push(`demo build shipped: ${path}`);
  // Every .js has its .d.ts: nothing is typed by accident only.
  for (const js of paths.filter((path) => path.endsWith('.js')))
    if (!has.has(js.replace(/\.js$/, '.d.ts'))) problems.push(`${js} has no ${js.replace(/\.js$/, '.d.ts')}`);
  // Every entry package.json names (exports, bin) is in the tarball.
  if (pkg) {
    const targets = Object.values(pkg.exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry)));
    for (const target of [...targets, ...Object.values(pkg.bin ?? {})])
      if (!has.has(target.replace(/^\.\//, ''))) problems.push(`package.json names ${target}, not in the tarball`);
  }
  if (packed.size >= PACKAGE_BOUNDS.packed) problems.push(`packed ${packed.size} B, bound ${PACKAGE_BOUNDS.packed} B`);
  if (packed.unpackedSize >= PACKAGE_BOUNDS.unpacked) problems.push(`unpacked ${packed.unpackedSize} B, bound ${PACKAGE_BOUNDS.unpacked} B`);
  return problems;
}
