// The docs site: `npm run docs` builds the TypeDoc API into docs/public/api, this site into docs/.vitepress/dist, then
// checks every internal link and anchor (test/docs/links.ts). Pages and their order: pages.ts.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { defineConfig } from 'vitepress';
import { groups } from './pages';

// Links out of docs/ (examples/, src/, BENCHMARKS.md) lead to the repository's files: test/docs/links.ts checks that
// each exists; on the site they open the repository (package.json's `repository`).
const repository = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { repository: { url: string } }).repository.url
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');

/** `../examples/react` from docs/guide/react.md -> the repository's examples/react; null for links inside docs/. */
function outOfDocs(href: string, page: string): string | null {
  if (/^[a-z]+:|^#|^\//.test(href)) return null;
  const [path = '', anchor] = href.split('#');
  const resolved = posix.normalize(posix.join('docs', posix.dirname(page), path));
  if (resolved.startsWith('docs/')) return null;
  return `${repository}/tree/main/${resolved}${anchor ? `#${anchor}` : ''}`;
}

export default defineConfig({
  title: 'quest-points',
  description: 'Award quest points from a web game reliably: offline outbox SDK, operator relay, local emulator, HUD.',
  // Pages are page.html and links say so: any static server answers a direct load or a reload of a deep link
  // (with cleanUrls, /unity is a 404 on a host that does not add .html; test/docs/demo-embed.test.ts serves the
  // build with node's http alone).
  cleanUrls: false,
  // The demo's coin (demo/public/sprites/coin.svg).
  head: [['link', { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }]],
  // The TypeDoc build is copied in from docs/public/api after the pages are checked.
  ignoreDeadLinks: [/^\/api\//],
  markdown: {
    config(md) {
      const render = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
      md.renderer.rules.link_open = (tokens, i, options, env: { relativePath: string }, self) => {
        const href = tokens[i]!.attrGet('href');
        const out = href ? outOfDocs(href, env.relativePath) : null;
        if (out) tokens[i]!.attrSet('href', out);
        return render(tokens, i, options, env, self);
      };
    },
  },
  themeConfig: {
    nav: [
      { text: 'Guides', link: '/guide/vite' },
      { text: 'Reference', link: '/sdk' },
      { text: 'API', link: '/api/index.html', target: '_self' },
    ],
    sidebar: [
      ...groups.map((group) => ({ text: group.text, items: group.items.map((item) => ({ text: item.text, link: `/${item.page}` })) })),
      { text: 'API (TypeDoc)', items: [{ text: 'Every export', link: '/api/index.html', target: '_self' }] },
    ],
    search: { provider: 'local' },
    outline: [2, 3],
  },
});
