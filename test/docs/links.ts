// Every internal link of README.md, BENCHMARKS.md and docs/**/*.md must lead somewhere: a relative link (or, in
// README.md, a link to this repository on GitHub) to a file or folder that exists in the repository, and its #anchor
// to a heading of that page. README.md's links are all absolute: it is also read on the npm page, where a relative
// link is dead. Anchors are the docs site's (VitePress's
// slugs) in docs/, GitHub's in README.md and BENCHMARKS.md (where they are read). Every page under docs/ must be in the site's sidebar
// (docs/.vitepress/pages.ts). `npm run docs` runs this after the build; test/docs/links.test.ts runs it in the suite.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { groups } from '../../docs/.vitepress/pages.js';
import { docFiles, root } from './snippet-sources.js';

/** This repository's files on GitHub: group 1 the path, group 2 the #anchor. */
const REPOSITORY_LINK =
  /^https:\/\/(?:github\.com\/quest-points\/quest-points\/(?:blob|tree)|raw\.githubusercontent\.com\/quest-points\/quest-points)\/main\/([^#?]+)(#.*)?$/;

/** VitePress's heading ids (@mdit-vue/shared slugify). */
export function vitepressSlug(text: string): string {
  const noControl = [...text.normalize('NFKD').replace(/[\u0300-\u036F]/g, '')].filter((c) => c.charCodeAt(0) > 0x1f).join('');
  return noControl
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/** GitHub's heading ids. */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The text of each heading as rendered (code spans and links reduced to their text), outside code fences. */
function headings(markdown: string): string[] {
  const outside = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...outside.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) =>
    m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\*\*([^*]*)\*\*/g, '$1'),
  );
}

function anchorsOf(file: string, slug: (text: string) => string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const text of headings(readFileSync(join(root, file), 'utf8'))) {
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n ? `${base}-${n}` : base);
  }
  return ids;
}

/** Every broken link, as `file:line: target (why)`; empty when all lead somewhere. */
export function brokenLinks(files = docFiles(), checkSidebar = true): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const slug = file.startsWith('docs/') ? vitepressSlug : githubSlug; // README.md and BENCHMARKS.md are read on GitHub
    const outside = text.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ' '));
    for (const m of outside.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const line = outside.slice(0, m.index).split('\n').length;
      const inRepo = REPOSITORY_LINK.exec(m[1]!);
      const target = inRepo ? relative(dirname(join(root, file)), join(root, inRepo[1]!)) + (inRepo[2] ?? '') : m[1]!;
      if (file === 'README.md' && !/^(https:|#)/.test(m[1]!)) problems.push(`${file}:${line}: ${m[1]} (relative: dead on the npm page)`);
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      // Site-absolute links: /api/ is the TypeDoc build (checked by TypeDoc's own validation), others are pages.
      if (path.startsWith('/api/')) continue;
      const resolved = path === '' ? file : path.startsWith('/') ? join('docs', path) : relative(root, join(root, dirname(file), path));
      const candidates = [resolved, `${resolved}.md`];
      const found = candidates.find((c) => existsSync(join(root, c)));
      if (!found) {
        problems.push(`${file}:${line}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!found.endsWith('.md') || statSync(join(root, found)).isDirectory()) {
        problems.push(`${file}:${line}: ${target} (an anchor on a file that is not a Markdown page)`);
        continue;
      }
      // The target is read where the link is: on GitHub from README.md, on the site from docs/.
      if (!anchorsOf(found, slug).has(anchor)) problems.push(`${file}:${line}: ${target} (no heading #${anchor} in ${found})`);
    }
  }
  if (!checkSidebar) return problems;
  const listed = new Set(groups.flatMap((group) => group.items.map((item) => `docs/${item.page}.md`)));
  listed.add('docs/index.md');
  for (const file of docFiles())
    if (file.startsWith('docs/') && !listed.has(file)) problems.push(`${file}: in no sidebar group of docs/.vitepress/pages.ts`);
  for (const page of listed) if (!existsSync(join(root, page))) problems.push(`docs/.vitepress/pages.ts: ${page} does not exist`);
  return problems;
}

if (process.argv[1]?.endsWith('links.ts')) {
  const problems = brokenLinks();
  if (problems.length) {
    console.error(`broken links:\n${problems.join('\n')}`);
    process.exit(1);
  }
  console.log(`links: every internal link and anchor of README.md, BENCHMARKS.md and ${docFiles().length - 2} docs pages leads somewhere`);
}
