// Code blocks of README.md and docs/**/*.md. A block marked `<!-- snippet: examples/...#region -->` must equal that
// region of a file the suite runs (snippet-sources.ts; `npx tsx test/docs/snippet-sources.ts --write` refreshes
// them); that file is type-checked whole by `npm run typecheck`. Every other ```ts (and ```tsx) block compiles here
// on its own under `strict` against the package's real exports, with no name left undefined: snippet-context.d.ts
// declares only the runtimes' own globals (Bun, Deno). A block that differs or does not compile fails here, naming
// its file, its line and the error.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { docFiles, root, sourcedSnippets } from './snippet-sources.js';

const out = `${root}test-results/snippets/`;

interface Snippet {
  file: string;
  index: number;
  line: number;
  code: string;
  tsx: boolean;
}

function extractSnippets(): Snippet[] {
  return docFiles().flatMap((file) => {
    const text = readFileSync(root + file, 'utf8');
    // Blocks taken from a file (marked) are checked against it instead, below.
    return [...text.matchAll(/^(<!-- snippet: [^\n]*-->\n)?```(ts|tsx)\n([\s\S]*?)^```/gm)].flatMap((m, index) =>
      m[1]
        ? []
        : [
            {
              file,
              index,
              line: text.slice(0, m.index).split('\n').length,
              code: m[3]!,
              tsx: m[2] === 'tsx',
            },
          ],
    );
  });
}

function compile(snippets: Snippet[]) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const names = snippets.map((s) => {
    const name = `${out}${s.file.replace(/[/.]/g, '_')}_${s.index}.${s.tsx ? 'tsx' : 'ts'}`;
    // Each snippet is its own module, so two snippets may declare the same names.
    writeFileSync(name, `${s.code}\nexport {};\n`);
    return name;
  });
  const entry = (sub: string) => [`${root}src/${sub}/index.ts`];
  const program = ts.createProgram([...names, `${root}test/docs/snippet-context.d.ts`], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    typeRoots: [`${root}node_modules/@types`],
    skipLibCheck: true,
    jsx: ts.JsxEmit.ReactJSX,
    baseUrl: root,
    paths: {
      'quest-points': entry('client'),
      'quest-points/relay': entry('relay'),
      'quest-points/relay/node': entry('relay/node'),
      'quest-points/emulator': entry('emulator'),
      'quest-points/protocol': entry('protocol'),
      'quest-points/phaser': entry('phaser'),
      'quest-points/vite': entry('vite'),
      'quest-points/react': entry('react'),
      'quest-points/sw': entry('sw'),
      'quest-points/hud': entry('hud'),
    },
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file && names.includes(d.file.fileName));
  return snippets.map((s, i) => ({
    snippet: s,
    errors: diagnostics
      .filter((d) => d.file!.fileName === names[i])
      .map(
        (d) =>
          `${s.file}:${s.line + 1 + d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      ),
  }));
}

describe('documentation snippets', () => {
  const snippets = extractSnippets();

  it('there are snippets to check in README.md and docs/', () => {
    expect(new Set(snippets.map((s) => s.file)).size).toBeGreaterThanOrEqual(4);
  });

  it('every block taken from an example or test equals its source, region by region', () => {
    const sourced = sourcedSnippets();
    expect(sourced.filter((s) => s.doc === 'README.md').length).toBeGreaterThanOrEqual(3);
    const drifted = sourced
      .filter((s) => s.actual !== s.expected)
      .map((s) => `${s.doc}:${s.line}: differs from ${s.source}${s.region ? `#${s.region}` : ''}`);
    expect(drifted, `${drifted.join('\n')}\nrun: npx tsx test/docs/snippet-sources.ts --write`).toEqual([]);
  });

  it('every other ```ts block compiles under strict', () => {
    const failures = compile(snippets).flatMap((r) => r.errors);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 120_000);
});
