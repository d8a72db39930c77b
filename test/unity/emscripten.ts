// The Unity package's .jslib and .jspre linked by Debian's emscripten into the C harness (harness.c), as Unity's
// build links them into a game: `--js-library` for the .jslib, `--pre-js` for the .jspre. The output is cached under
// node_modules/.cache, keyed by a hash of every input (sources, flags, emcc's version): a rerun with nothing changed
// does not compile.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { paths, repo } from './sources.js';

const run = promisify(execFile);

/**
 * The optimisation levels of Unity's WebGL builds: -O2 (development-ish "Faster runs" off), -O3 ("Faster runs"),
 * -Oz ("Disk size", the default of a release build). Each runs emscripten's JS optimiser over the .jspre and the
 * .jslib; -O3 and -Oz run more of its passes (those turned "use strict" directives into `null;`).
 */
export const RELEASE_LEVELS = ['-O2', '-O3', '-Oz'] as const;
export type Level = (typeof RELEASE_LEVELS)[number];

/** Close to a Unity release build (the level apart): a heap that may grow, one file. */
export const EMCC_FLAGS = [
  '-sALLOW_MEMORY_GROWTH=1',
  '-sSINGLE_FILE=1',
  // Unity's runtime exports malloc and free for .jslib code; so does this one.
  '-sEXPORTED_FUNCTIONS=_main,_malloc,_free',
  '-sEXPORTED_RUNTIME_METHODS=ccall,UTF8ToString',
];

const cacheDir = join(repo, 'node_modules/.cache/quest-points-unity');

/**
 * emcc's environment. Debian's emcc runs its JS tools with `node`, which finds Debian's acorn only through NODE_PATH
 * when node is not Debian's own. Debian ships emscripten's system libraries prebuilt in a frozen cache
 * (FROZEN_CACHE): the first run builds nothing and writes nothing there, as root or not.
 */
function emccEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
}

/** The harness page's script: built now, or from the cache. `compileMs` is 0 when it came from the cache. */
export async function buildHarness(level: Level = '-O2'): Promise<{ script: string; compileMs: number }> {
  const [c, jslib, preJs] = await Promise.all([paths.harness, paths.jslib, paths.jspre].map((path) => readFile(path, 'utf8')));
  return link('harness', { c: c!, jslib: jslib!, preJs: preJs! }, level);
}

/**
 * A C program linked with a .jslib and a pre-js by emcc (EMCC_FLAGS at `level`), from the cache slot `slot` (one per
 * level) when unchanged.
 */
export async function link(
  name: string,
  inputs: { c: string; jslib?: string; preJs: string },
  level: Level = '-O2',
): Promise<{ script: string; compileMs: number }> {
  const slot = `${name}${level}`;
  const flags = [level, ...EMCC_FLAGS];
  const env = emccEnv();
  const { stdout } = await run('emcc', ['--version'], { env });
  const hash = createHash('sha256').update(stdout.split('\n')[0]!).update(flags.join(' '));
  for (const input of [inputs.c, inputs.jslib ?? '', inputs.preJs]) hash.update(input).update('\0');
  const cached = join(cacheDir, `${slot}-${hash.digest('hex').slice(0, 32)}.js`);
  const hit = await readFile(cached, 'utf8').catch(() => undefined);
  if (hit) return { script: hit, compileMs: 0 };

  const work = await mkdtemp(join(tmpdir(), 'qp-emcc-'));
  try {
    await Promise.all([
      writeFile(join(work, 'main.c'), inputs.c),
      writeFile(join(work, 'pre.js'), inputs.preJs),
      inputs.jslib === undefined ? undefined : writeFile(join(work, 'library.jslib'), inputs.jslib),
    ]);
    const library = inputs.jslib === undefined ? [] : ['--js-library', 'library.jslib'];
    const started = performance.now();
    await run('emcc', ['main.c', ...library, '--pre-js', 'pre.js', ...flags, '-o', 'out.js'], { env, cwd: work }).catch(
      (error: { stderr: string }) => {
        throw new Error(`emcc failed:\n${error.stderr}`);
      },
    );
    const compileMs = performance.now() - started;
    const script = await readFile(join(work, 'out.js'), 'utf8');
    // One entry per slot: the slot's older builds go, the new one lands whole (written aside, then renamed).
    await mkdir(cacheDir, { recursive: true });
    for (const name of await readdir(cacheDir)) if (name.startsWith(`${slot}-`)) await rm(join(cacheDir, name), { force: true });
    await writeFile(`${cached}.${process.pid}`, script);
    await rename(`${cached}.${process.pid}`, cached);
    return { script, compileMs };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
