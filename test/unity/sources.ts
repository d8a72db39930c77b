// The Unity package's three sides read as data, for the cross-checks: the C# (its [DllImport]s, its [Serializable]
// payload classes and which class each event type is read as), the .jslib (its functions, parsed as ES5), and the C
// harness's externs. What GA-SDK-UNITY #25 shipped (a function C# calls that the .jslib never declared) fails here.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'acorn';

export const repo = resolve(import.meta.dirname, '../..');
export const unity = join(repo, 'engines/unity');
export const paths = {
  csharp: join(unity, 'Runtime/QuestPoints.cs'),
  types: join(unity, 'Runtime/QuestPointsTypes.cs'),
  jslib: join(unity, 'Runtime/Plugins/WebGL/QuestPoints.jslib'),
  jspre: join(unity, 'Runtime/Plugins/WebGL/QuestPoints.jspre'),
  harness: join(repo, 'test/unity/harness.c'),
};
const read = (path: string) => readFileSync(path, 'utf8');

/** A function one side declares: its name and parameter names (types dropped). */
export interface Declared {
  name: string;
  params: string[];
  returns: string;
}

const split = (list: string) =>
  list
    .split(',')
    .map((param) => param.trim())
    .filter((param) => param && param !== 'void');

/** The C#'s [DllImport("__Internal")] static externs. */
export function dllImports(source = read(paths.csharp)): Declared[] {
  return [...source.matchAll(/\[DllImport\("__Internal"\)\]\s*(?:private\s+|internal\s+)?static\s+extern\s+(\w+)\s+(\w+)\s*\(([^)]*)\)/g)].map(
    ([, returns, name, params]) => ({ name: name!, returns: returns!, params: split(params!) }),
  );
}

/** The C harness's `extern` function declarations. */
export function cExterns(source = read(paths.harness)): Declared[] {
  return [...source.matchAll(/^extern\s+([\w\s*]+?)\s*\*?\s*(\w+)\s*\(([^)]*)\);/gm)].map(([whole, returns, name, params]) => ({
    name: name!,
    returns: whole.includes(`*${name}`) ? `${returns}*` : returns!,
    params: split(params!),
  }));
}

/** The .jslib's text with emscripten's {{{ macro }}} expressions replaced by an identifier, as its preprocessor would. */
export function jslibAsJavaScript(source = read(paths.jslib)): string {
  return source.replace(/\{\{\{[\s\S]*?\}\}\}/g, 'macroExpansion');
}

/** The .jslib's library functions (the object merged into LibraryManager.library): names, parameters; ES5 only. */
export function jslibFunctions(source = read(paths.jslib)): Declared[] {
  const program = parse(jslibAsJavaScript(source), { ecmaVersion: 5 }) as unknown as {
    body: { type: string; declarations?: { init: { type: string; properties: Property[] } }[] }[];
  };
  interface Property {
    key: { name?: string; value?: string };
    value: { type: string; params?: { name: string }[] };
  }
  const library = program.body.find((node) => node.type === 'VariableDeclaration')?.declarations?.[0]?.init;
  if (library?.type !== 'ObjectExpression') throw new Error('the .jslib does not start with `var <Library> = { ... }`');
  return library.properties
    .filter((property) => property.value.type === 'FunctionExpression')
    .map((property) => ({
      name: String(property.key.name ?? property.key.value),
      returns: '?',
      params: (property.value.params ?? []).map((p) => p.name),
    }));
}

/** The event types the .jslib sends to C# (`send(entry, '<type>', ...)`). */
export function jslibEventTypes(source = read(paths.jslib)): string[] {
  return [...new Set([...source.matchAll(/\.send\(entry, '(\w+)'/g)].map(([, type]) => type!))].sort();
}

/** C#'s Dispatch: each `case "<type>":` and the class it reads the JSON as (null when it reads none). */
export function dispatchCases(source = read(paths.csharp)): Map<string, string | null> {
  const body = source.slice(source.indexOf('void Dispatch('));
  const cases = new Map<string, string | null>();
  for (const [, type, block] of body.matchAll(/case "(\w+)":([\s\S]*?)break;/g)) cases.set(type!, /FromJson<(\w+)>/.exec(block!)?.[1] ?? null);
  return cases;
}

/** Each [Serializable] class of the package and its public fields (a base class's first, as JsonUtility writes them). */
export function serializableClasses(source = read(paths.types)): Map<string, string[]> {
  const classes = new Map<string, string[]>();
  for (const [, name, base, body] of source.matchAll(/\[Serializable\]\s*public class (\w+)(?:\s*:\s*(\w+))?\s*\{([\s\S]*?)\n {4}\}/g)) {
    const own = [...body!.matchAll(/^\s*public\s+[\w[\]]+\s+(\w+)\s*(?:=[^;]*)?;/gm)].map(([, field]) => field!);
    const inherited = base ? classes.get(base) : [];
    if (!inherited) throw new Error(`${name}'s base ${base} must be declared before it`);
    classes.set(name!, [...inherited, ...own]);
  }
  return classes;
}

type Tree = unknown;
/** An acorn AST without positions and source spellings: what the code means, not how it is printed. */
function meaning(node: Tree): Tree {
  if (Array.isArray(node)) return node.map(meaning);
  if (!node || typeof node !== 'object') return node;
  const kept: Record<string, Tree> = {};
  for (const [key, value] of Object.entries(node)) if (!['start', 'end', 'raw', 'directive'].includes(key)) kept[key] = meaning(value);
  return kept;
}

/**
 * The statements of `preJs` as they come out of emcc's optimiser, found in its output (after `var Module = ...`,
 * before `var moduleOverrides`), compared with the input's, positions and spellings aside. A difference is code the
 * optimiser dropped or changed (emscripten #18373: a destructuring `for...of` printed as `for (; of ...)`). Returns
 * null when they mean the same, else the first differing path.
 */
export function preJsChange(output: string, preJs: string): string | null {
  const input = meaning(parse(preJs, { ecmaVersion: 'latest' }).body) as Tree[];
  type Statement = { type: string; declarations?: { id: { name?: string } }[] };
  let statements: Statement[];
  try {
    statements = parse(output, { ecmaVersion: 'latest' }).body as Statement[];
  } catch (error) {
    return `the output does not parse: ${(error as Error).message}`;
  }
  const end = statements.findIndex((node) => node.type === 'VariableDeclaration' && node.declarations?.[0]?.id.name === 'moduleOverrides');
  const kept = meaning(statements.slice(1, end)) as Tree[];
  const first = (a: Tree, b: Tree, path: string): string | null => {
    if (JSON.stringify(a) === JSON.stringify(b)) return null;
    if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return path;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = first((a as Record<string, Tree>)[key], (b as Record<string, Tree>)[key], `${path}.${key}`);
      if (found) return found;
    }
    return path;
  };
  return first(input, kept, 'body');
}
