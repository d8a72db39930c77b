// Import circles among the TypeScript modules under a folder (type-only imports count): every strongly connected
// component of more than one module, and every module that imports itself. Usage: node scripts/import-cycles.mjs src/relay
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The circles among the modules under `root`: arrays of paths relative to the working directory. */
export function importCycles(root) {
  const modules = files(resolve(root));
  const known = new Set(modules);
  const edges = new Map();
  for (const file of modules) {
    const targets = new Set();
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), match[1]).replace(/\.js$/, '.ts');
      if (known.has(target)) targets.add(target);
    }
    edges.set(file, targets);
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const stack = [];
  const state = new Map();
  const cycles = [];
  const visit = (node) => {
    state.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of edges.get(node)) {
      if (!state.has(next)) {
        visit(next);
        state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
      } else if (state.get(next).onStack) {
        state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
      }
    }
    if (state.get(node).low === state.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        state.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || edges.get(node).has(node)) cycles.push(component.map((path) => relative(process.cwd(), path)).sort());
    }
  };
  for (const file of modules) if (!state.has(file)) visit(file);
  return cycles;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const cycles = importCycles(process.argv[2] ?? 'src/relay');
  for (const cycle of cycles) console.log(`circle of ${cycle.length}: ${cycle.join(' ')}`);
  console.log(`${cycles.length} import circle(s)`);
  process.exitCode = cycles.length ? 1 : 0;
}
