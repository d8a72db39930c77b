// README.md and docs/: every internal link and anchor leads somewhere, every page is in the site's sidebar (links.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, githubSlug, vitepressSlug } from './links.js';
import { docFiles, root } from './snippet-sources.js';

const fixture = 'test-results/links/page.md';
afterAll(() => rmSync(`${root}test-results/links`, { recursive: true, force: true }));

describe('documentation links', () => {
  it('every internal link and anchor of README.md and docs/ leads somewhere; every page is in the sidebar', () => {
    const problems = brokenLinks();
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('every table of README.md and docs/ has a header row (docs/unity.md had an empty one: a blank bar over the table)', () => {
    const empty = docFiles().flatMap((file) => {
      const lines = readFileSync(`${root}${file}`, 'utf8').split('\n');
      return lines.flatMap((line, i) => {
        if (!/^\|[-:| ]+\|$/.test(lines[i + 1] ?? '') || !line.startsWith('|')) return [];
        const cells = line.slice(1, -1).split('|');
        return cells.every((cell) => cell.trim() === '') ? [`${file}:${i + 1}: ${line}`] : [];
      });
    });
    expect(empty).toEqual([]);
  });

  it('slugs: the docs site (VitePress) and GitHub', () => {
    // VitePress keeps an em dash (its slugify replaces ASCII punctuation and spaces only).
    expect(vitepressSlug('Options — createQuestPoints(options)')).toBe('options-—-createquestpoints-options');
    expect(githubSlug('Options — createQuestPoints(options)')).toBe('options--createquestpointsoptions');
    expect(vitepressSlug('The stack, and size')).toBe('the-stack-and-size');
  });

  it('fails on a missing file, a missing anchor, and an anchor on a folder', () => {
    mkdirSync(`${root}test-results/links`, { recursive: true });
    writeFileSync(
      `${root}${fixture}`,
      [
        '# Page',
        '',
        '[ok](../../docs/sdk.md#events) [file](../../docs/nope.md) [anchor](../../docs/sdk.md#nope) [dir](../../examples#x) [self](#page) [selfbad](#nope)',
      ].join('\n'),
    );
    expect(brokenLinks([fixture], false)).toEqual([
      `${fixture}:3: ../../docs/nope.md (no such file)`,
      `${fixture}:3: ../../docs/sdk.md#nope (no heading #nope in docs/sdk.md)`,
      `${fixture}:3: ../../examples#x (an anchor on a file that is not a Markdown page)`,
      `${fixture}:3: #nope (no heading #nope in ${fixture})`,
    ]);
  });
});
