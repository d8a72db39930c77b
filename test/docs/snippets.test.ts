// Every ```ts (and ```tsx) block of README.md and docs/*.md compiles under `strict` against the package's real
// exports ('quest-points', 'quest-points/relay', ...). Snippets are fragments: the few names they use without
// defining (the game's player, its HUD, its getToken) are declared once in snippet-context.d.ts. A snippet that does
// not compile fails here, naming its file, its block and the error.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const out = `${root}test-results/snippets/`;

interface Snippet {
  file: string;
  index: number;
  line: number;
  code: string;
  tsx: boolean;
}

function extractSnippets(): Snippet[] {
  const files = [
    'README.md',
    ...readdirSync(`${root}docs`)
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => {
    const text = readFileSync(root + file, 'utf8');
    return [...text.matchAll(/^```(ts|tsx)\n([\s\S]*?)^```/gm)].map((m, index) => ({
      file,
      index,
      line: text.slice(0, m.index).split('\n').length,
      code: m[2]!,
      tsx: m[1] === 'tsx',
    }));
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
    expect(snippets.filter((s) => s.file === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(new Set(snippets.map((s) => s.file)).size).toBeGreaterThanOrEqual(4);
  });

  it('every ```ts block compiles under strict', () => {
    const failures = compile(snippets).flatMap((r) => r.errors);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 120_000);
});
