// Code blocks in README.md and docs/ that come from a file the tests run: the line before the fence names it,
//   <!-- snippet: examples/vite-vanilla/main.ts#quickstart -->
// and the block must equal that file's region (between `#region quickstart` and `#endregion quickstart` comments,
// marker lines left out, common indentation removed) or the whole file without `#name`.
// `npx tsx test/docs/snippet-sources.ts --write` rewrites every such block from its source; the test fails on a block
// that differs, so a snippet cannot drift from code that runs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** README.md, BENCHMARKS.md and every Markdown page under docs/ (not the generated API), as paths from the repository root. */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(root + dir, { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'api' || entry.name === 'public' ? [] : walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', 'BENCHMARKS.md', ...walk('docs')];
}

const MARKER = /^<!-- snippet: ([^#\s]+)(?:#([\w-]+))? -->\n```(\w+)\n([\s\S]*?)^```$/gm;

/** The text of `file`'s region `name` (or the whole file), dedented, ending in a newline. */
export function regionOf(file: string, name?: string): string {
  const lines = readFileSync(root + file, 'utf8').split('\n');
  let body = lines;
  if (name) {
    const isMarker = (line: string, kind: string) => new RegExp(`#${kind}\\s+${name}\\b`).test(line);
    const start = lines.findIndex((line) => isMarker(line, 'region'));
    const end = lines.findIndex((line, i) => i > start && isMarker(line, 'endregion'));
    if (start < 0 || end < 0) throw new Error(`${file} has no region "${name}" (#region ${name} ... #endregion ${name})`);
    body = lines.slice(start + 1, end);
  }
  body = body.filter((line) => !/#(end)?region\b/.test(line));
  while (body.length && body.at(-1)!.trim() === '') body.pop();
  const indent = Math.min(...body.filter((line) => line.trim()).map((line) => line.match(/^ */)![0].length));
  return `${body.map((line) => line.slice(indent)).join('\n')}\n`;
}

export interface SourcedSnippet {
  doc: string;
  source: string;
  region: string | undefined;
  line: number;
  actual: string;
  expected: string;
}

/** Every block with a snippet marker, with what it says and what its source says. */
export function sourcedSnippets(): SourcedSnippet[] {
  return docFiles().flatMap((doc) => {
    const text = readFileSync(root + doc, 'utf8');
    return [...text.matchAll(MARKER)].map((m) => ({
      doc,
      source: m[1]!,
      region: m[2],
      line: text.slice(0, m.index).split('\n').length,
      actual: m[4]!,
      expected: regionOf(m[1]!, m[2]),
    }));
  });
}

/** Rewrites every marked block from its source; returns the documents changed. */
export function writeSnippets(): string[] {
  return docFiles().filter((doc) => {
    const text = readFileSync(root + doc, 'utf8');
    const next = text.replace(MARKER, (_all, source: string, region: string | undefined, lang: string) => {
      return `<!-- snippet: ${source}${region ? `#${region}` : ''} -->\n\`\`\`${lang}\n${regionOf(source, region)}\`\`\``;
    });
    if (next !== text) writeFileSync(root + doc, next);
    return next !== text;
  });
}

if (process.argv[1]?.endsWith('snippet-sources.ts') && process.argv.includes('--write'))
  console.log(`rewritten: ${writeSnippets().join(', ') || 'none'}`);
