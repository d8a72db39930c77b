// quest-points/global: src/global/index.ts bundled with everything it imports into one minified IIFE that sets
// window.QuestPoints (a <script> from a CDN, an engine's .jspre). It replaces tsc's ESM output of that file; tsc's
// index.d.ts (the global's declaration) stays. Usage: node scripts/build-global.mjs [outfile]
//
// The syntax is what emscripten's JS optimizer keeps intact, since Unity links this file as a .jspre and runs that
// optimizer over it in every release build (emscripten 3.1.x, Unity 2021.3 to 6): ES2017 (esbuild lowers ?., ??,
// object rest/spread and class fields), and no destructuring, which that optimizer silently drops or mangles
// (emscripten #18373, #20393: `for (const [k, v] of ...)` printed as `for (; of ...)`), lowered here by Babel. A
// test (test/unity) links the build with Debian's emscripten and checks that the optimizer's output means the same.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { transformAsync } from '@babel/core';
import destructuring from '@babel/plugin-transform-destructuring';
import parameters from '@babel/plugin-transform-parameters';
import { inlineLazy } from './inline-lazy.mjs';
import { build, transform } from 'esbuild';

const repo = resolve(import.meta.dirname, '..');
const outfile = resolve(process.argv[2] ?? join(repo, 'dist/global/index.js'));
const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));
const TARGET = 'es2017';

// 1. One module with no imports or exports (the entry has none), ES2017.
const bundled = await build({
  entryPoints: [join(repo, 'src/global/index.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: TARGET,
  define: { __QP_VERSION__: JSON.stringify(version) },
  plugins: [inlineLazy],
  // Constants folded and what nothing uses dropped here, not by emscripten's optimiser (test/unity checks that it
  // leaves the script as it is): an unused `16 * 1024` of protocol/limits.ts survived tree shaking unfolded.
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// 2. Destructuring (declarations, for-of heads, parameters) lowered to plain variables.
const lowered = await transformAsync(bundled.outputFiles[0].text, {
  babelrc: false,
  configFile: false,
  sourceType: 'module',
  plugins: [destructuring, parameters],
});
// 3. Minified and wrapped: everything, Babel's helpers included, stays inside one function, and that function is
// strict without a "use strict" directive: a class's method is strict code by definition. emscripten's JS optimiser
// at -O3 and -Oz (Unity's release levels) turns directives into `null;` (test/unity links at each level), so with a
// directive the SDK ran in sloppy mode there; a class survives it. Strictness stays inside: a "use strict" before the
// script would make a whole Unity framework strict when the .jspre is placed first.
const { code } = await transform(lowered.code, { format: 'iife', minify: true, target: TARGET, legalComments: 'none' });
const iife = /^(?:"use strict";)?\(\(\)=>\{([\s\S]*)\}\)\(\);\s*$/.exec(code);
if (!iife) throw new Error(`build-global: unexpected IIFE shape: ${code.slice(0, 40)}`);
// Directives inside (esbuild's, a bundled CommonJS module's own) are redundant in a class: dropped, so that none is
// left for the optimiser to change. (`{"use strict";` or `;"use strict";` can only be a directive or a statement
// that does nothing.)
const inner = iife[1].replace(/(^|[{;])"use strict";/g, '$1');
if (inner.includes('"use strict"')) throw new Error('build-global: a "use strict" is left inside the class');
// Its completion value is undefined, as the IIFE's was: Godot's JavaScriptBridge.eval hands that back to GDScript.
const body = `(class{static run(){${inner}}}).run();`;
await mkdir(dirname(outfile), { recursive: true });
await writeFile(outfile, `/*! quest-points ${version} (global build) | MIT */\n${body}`);
