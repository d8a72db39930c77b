// The README quick start pasted into a create-vite project (template vanilla-ts: its tsconfig.json, its index.html,
// its `"build": "tsc && vite build"`), as a newcomer does: vite.config.ts, the page's #game element in place of the
// template's <div id="app">, src/main.ts; the package linked as node_modules/quest-points (the built package: `npm
// test` builds it first). `npm run build` must pass: tsc under the template's strict, unused-names-are-errors settings
// (TS6133 caught a quick start that defined collectCoin and never called it), then vite build, whose page has #game.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sourcedSnippets } from '../docs/snippet-sources.js';
import { testTempDir } from '../helpers/temp.js';
import { repo } from './harness.js';

// create-vite's template-vanilla-ts (create-vite 6 to 8), the files the quick start meets.
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    useDefineForClassFields: true,
    module: 'ESNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: ['vite/client'],
    skipLibCheck: true,
    moduleResolution: 'bundler',
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    moduleDetection: 'force',
    noEmit: true,
    strict: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    erasableSyntaxOnly: true,
    noFallthroughCasesInSwitch: true,
    noUncheckedSideEffectImports: true,
  },
  include: ['src'],
};
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>Vite + TS</title>
  </head>
  <body>
    <div id="app"></div>
    <script type="module" src="/src/main.ts"></script>
  </body>
</html>
`;

/** The README's block taken from `source` (a snippet block: test/docs/snippets.test.ts checks it is that file). */
function readmeBlock(source: string): string {
  const block = sourcedSnippets().find((s) => s.doc === 'README.md' && `${s.source}${s.region ? `#${s.region}` : ''}` === source);
  if (!block) throw new Error(`README.md shows no block of ${source}`);
  return block.actual;
}

describe('the README quick start in a create-vite project', () => {
  it('`npm run build` (tsc && vite build) passes as pasted, and the page has #game for the HUD', async () => {
    const project = testTempDir('qp-create-vite');
    const modules = join(project, 'node_modules');
    mkdirSync(join(modules, '.bin'), { recursive: true });
    mkdirSync(join(project, 'src'));
    const installed = (name: string) => realpathSync(join(repo, 'node_modules', name));
    symlinkSync(repo, join(modules, 'quest-points'));
    symlinkSync(installed('vite'), join(modules, 'vite'));
    symlinkSync(installed('typescript'), join(modules, 'typescript'));
    symlinkSync(join(installed('typescript'), 'bin/tsc'), join(modules, '.bin/tsc'));
    symlinkSync(join(installed('vite'), 'bin/vite.js'), join(modules, '.bin/vite'));
    const pkg = { name: 'my-game', private: true, version: '0.0.0', type: 'module', scripts: { build: 'tsc && vite build' } };
    writeFileSync(join(project, 'package.json'), JSON.stringify(pkg, null, 2));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    const page = readmeBlock('examples/vite-vanilla/index.html#page').trimEnd().replace(/\n/g, '\n    ');
    writeFileSync(join(project, 'index.html'), INDEX_HTML.replace('<div id="app"></div>', page));
    writeFileSync(join(project, 'vite.config.ts'), readmeBlock('examples/vite-vanilla/vite.config.ts'));
    writeFileSync(join(project, 'src/main.ts'), readmeBlock('examples/vite-vanilla/main.ts#quickstart'));

    const built = await promisify(execFile)('npm', ['run', 'build'], { cwd: project }).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`npm run build failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(built.stdout).toContain('vite build');
    const html = readFileSync(join(project, 'dist/index.html'), 'utf8');
    expect(html).toContain('<div id="game"');
    expect(readdirSync(join(project, 'dist/assets')).some((file) => file.endsWith('.js'))).toBe(true);
  }, 120_000);
});
