// Every ```ts / ```tsx snippet of docs/react.md compiles under the repo's strict settings, against the real exports
// ('quest-points' and 'quest-points/react' mapped to the sources, so no build is needed).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));

function snippets(markdown: string): { lang: string; code: string; line: number }[] {
  const found: { lang: string; code: string; line: number }[] = [];
  const fence = /^```(tsx?)\n([\s\S]*?)^```/gm;
  for (const match of markdown.matchAll(fence)) {
    found.push({ lang: match[1]!, code: match[2]!, line: markdown.slice(0, match.index).split('\n').length });
  }
  return found;
}

function compile(files: Map<string, string>): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(`${repo}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    // Browser code: Node's types are not needed (and are the slowest part to load).
    types: [],
    baseUrl: repo,
    paths: { 'quest-points': ['src/client/index.ts'], 'quest-points/react': ['src/react/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.getSourceFile = (name, version, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name)!, version, true) : getSourceFile(name, version, ...rest);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.has(d.file.fileName))
    .map((d) => `${d.file!.fileName.slice(repo.length)}:${d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('docs/react.md', () => {
  it('every ts/tsx snippet type-checks', { timeout: 60_000 }, () => {
    const found = snippets(readFileSync(`${repo}docs/react.md`, 'utf8'));
    expect(found.length).toBeGreaterThanOrEqual(5);
    // Each snippet is its own module, named after its line in the document.
    const files = new Map(found.map((s) => [`${repo}docs/react.md.line-${s.line}.${s.lang}`, `${s.code}\nexport {};\n`]));
    expect(compile(files)).toEqual([]);
  });
});
