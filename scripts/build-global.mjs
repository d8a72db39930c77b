// quest-points/global: src/global/index.ts bundled with everything it imports into one minified IIFE that sets
// window.QuestPoints (a <script> from a CDN, an engine's .jspre). It replaces tsc's ESM output of that file; tsc's
// index.d.ts (the global's declaration) stays. ES2017: emscripten's JS optimizer (Unity's .jspre path) and older
// engine webviews parse it; esbuild lowers ?., ?? and object spread. Usage: node scripts/build-global.mjs [outfile]
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const repo = resolve(import.meta.dirname, '..');
const outfile = resolve(process.argv[2] ?? join(repo, 'dist/global/index.js'));
const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));

await build({
  entryPoints: [join(repo, 'src/global/index.ts')],
  outfile,
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2017',
  define: { __QP_VERSION__: JSON.stringify(version) },
  banner: { js: `/*! quest-points ${version} (global build) | MIT */` },
  legalComments: 'none',
  logLevel: 'warning',
});
