// For the one-file builds (quest-points/sw.js, the script-tag build): the SDK's own `import('./x.js')` become static
// imports. A page's bundler splits those modules off so a game does not wait for them (the HTTP layer, the account
// calls, the probes...); in one file they are there anyway, and esbuild would wrap each in a lazy initializer
// (`__esm` with its path as a key, an export object), which costs bytes and buys nothing. The module is then evaluated
// with the rest (none of them does anything when evaluated). Only relative specifiers of src/ are rewritten.
import { readFile } from 'node:fs/promises';

export const inlineLazy = {
  name: 'inline-lazy',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      const imports = [];
      const contents = source.replace(/\bimport\((['"])(\.{1,2}\/[^'"]+)\1\)/g, (_, quote, specifier) => {
        const name = `__inlined${imports.length}`;
        imports.push(`import * as ${name} from ${quote}${specifier}${quote};`);
        return `Promise.resolve(${name})`;
      });
      return imports.length ? { contents: `${imports.join('\n')}\n${contents}`, loader: 'ts' } : undefined;
    });
  },
};
