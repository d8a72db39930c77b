// quest-points/sw.js: src/sw/worker.ts bundled with everything it imports into one file (a service worker is served
// from the game's origin; it cannot resolve the package's imports). An ES module, as every .js of this "type": "module"
// package: registered with { type: 'module' }. Usage: node scripts/build-sw.mjs [distDir]
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inlineLazy } from './inline-lazy.mjs';
import { build } from 'esbuild';

const repo = resolve(import.meta.dirname, '..');
const dist = resolve(process.argv[2] ?? join(repo, 'dist'));

await build({
  entryPoints: [join(repo, 'src/sw/worker.ts')],
  outfile: join(dist, 'sw/worker.js'),
  bundle: true,
  minify: true,
  format: 'esm',
  // Nothing to export, but a module it is (Background Sync browsers all run module service workers).
  footer: { js: 'export {};' },
  target: 'es2020',
  plugins: [inlineLazy],
  logLevel: 'warning',
});
// The script exports nothing; its declaration says so (every published .js has its .d.ts).
await writeFile(
  join(dist, 'sw/worker.d.ts'),
  '// quest-points/sw.js: a module service worker, configured by its URL query. It exports nothing.\nexport {};\n',
);
