import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, it } from 'vitest';

// src/client has no import circle: every import counts (static, type-only, dynamic), so a module can be read, tested
// and loaded apart from the ones that import it.

const dir = resolve(import.meta.dirname, '../../src/client');

function importsOf(file: string): string[] {
  const text = readFileSync(join(dir, file), 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.[^']+)'/g)]
    .map((m) => resolve(dirname(join(dir, file)), m[1]!).replace(/\.js$/, '.ts'))
    .filter((target) => dirname(target) === dir)
    .map((target) => target.slice(dir.length + 1));
}

it('no import circle in src/client (type-only and dynamic imports count)', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  const edges = new Map(files.map((f) => [f, importsOf(f)]));
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  expect(edges.get('api.ts')?.length).toBeGreaterThan(3);
  expect(cycles).toEqual([]);
});
