// gdlint's default rules (gdtoolkit 4.5; the GDScript style guide's), checked on tree-sitter-gdscript's parse: gdtoolkit
// is a Python package CI does not install. Each rule keeps gdlint's name and default; a finding reads
// "name line N: what". Lines are measured with a tab as 4 columns (Godot's editor default; gdlint counts a tab as 1 by
// default, so a file within these limits is within gdlint's).
import type { Node, Tree } from 'web-tree-sitter';

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const PRIVATE_SNAKE = /^_?[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const CONSTANT = /^_?[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
// Signal handlers may keep the node's name: _on_Button_pressed.
const FUNCTION = /^(_on_([A-Z][a-z0-9]*)+(_[a-z0-9]+)*|_?[a-z][a-z0-9]*(_[a-z0-9]+)*)$/;

/** gdlint's defaults that this check applies. */
export const LIMITS = { maxLineLength: 100, maxReturns: 6, maxArguments: 10, maxPublicMethods: 20, maxFileLines: 1000 };

/** Text rules: line length, trailing whitespace, indentation mixing tabs and spaces, file length. */
export function lintLines(source: string): string[] {
  const found: string[] = [];
  const lines = source.replace(/\n$/, '').split('\n');
  if (lines.length > LIMITS.maxFileLines) found.push(`max-file-lines: ${lines.length} lines`);
  lines.forEach((line, i) => {
    const columns = line.replace(/\t/g, '    ').length;
    if (columns > LIMITS.maxLineLength) found.push(`max-line-length line ${i + 1}: ${columns} columns`);
    if (/[ \t]$/.test(line)) found.push(`trailing-whitespace line ${i + 1}`);
    if (/^(\t+ | +\t)/.test(line)) found.push(`mixed-tabs-and-spaces line ${i + 1}`);
  });
  return found;
}

const descendants = (node: Node, type: string) => node.descendantsOfType(type).filter((n): n is Node => n !== null);
const line = (node: Node) => node.startPosition.row + 1;

/** The statements of a function's body, its nested lambdas' left out (their returns are theirs). */
function ownReturns(fn: Node): Node[] {
  return descendants(fn, 'return_statement').filter((r) => {
    for (let n = r.parent; n && n.id !== fn.id; n = n.parent) if (n.type === 'lambda') return false;
    return true;
  });
}

function parameterNames(fn: Node): Node[] {
  const parameters = fn.childForFieldName('parameters');
  if (!parameters) return [];
  return parameters.namedChildren.flatMap((p) =>
    p?.type === 'identifier' ? [p] : (p?.namedChildren.filter((c): c is Node => c?.type === 'identifier').slice(0, 1) ?? []),
  );
}

/** Tree rules: names, returns per function, arguments, public methods, pass, else after return. */
export function lintTree(tree: Tree): string[] {
  const found: string[] = [];
  const root = tree.rootNode;
  const functions = descendants(root, 'function_definition');
  for (const fn of functions) {
    const name = fn.childForFieldName('name')!.text;
    if (!FUNCTION.test(name)) found.push(`function-name line ${line(fn)}: ${name}`);
    const returns = ownReturns(fn).length;
    if (returns > LIMITS.maxReturns) found.push(`max-returns line ${line(fn)}: ${name} has ${returns} returns`);
    const parameters = parameterNames(fn);
    if (parameters.length > LIMITS.maxArguments) found.push(`function-arguments-number line ${line(fn)}: ${name}`);
    for (const p of parameters) if (!PRIVATE_SNAKE.test(p.text)) found.push(`function-argument-name line ${line(p)}: ${p.text}`);
    for (const v of descendants(fn, 'variable_statement')) {
      const variable = v.childForFieldName('name')!.text;
      if (!SNAKE.test(variable)) found.push(`function-variable-name line ${line(v)}: ${variable}`);
    }
  }
  const publicMethods = root.namedChildren.filter((n) => n?.type === 'function_definition' && !n.childForFieldName('name')!.text.startsWith('_'));
  if (publicMethods.length > LIMITS.maxPublicMethods) found.push(`max-public-methods: ${publicMethods.length}`);
  for (const node of root.namedChildren) {
    if (!node) continue;
    const name = node.childForFieldName('name')?.text ?? '';
    if (node.type === 'signal_statement' && !SNAKE.test(name)) found.push(`signal-name line ${line(node)}: ${name}`);
    if (node.type === 'const_statement' && !CONSTANT.test(name)) found.push(`constant-name line ${line(node)}: ${name}`);
    if (['variable_statement', 'export_variable_statement', 'onready_variable_statement'].includes(node.type) && !PRIVATE_SNAKE.test(name))
      found.push(`class-variable-name line ${line(node)}: ${name}`);
  }
  for (const pass of descendants(root, 'pass_statement'))
    if ((pass.parent?.namedChildren.filter((n) => n?.type !== 'comment').length ?? 0) > 1) found.push(`unnecessary-pass line ${line(pass)}`);
  // no-else-return / no-elif-return: an if whose branch ends in return needs no else or elif after it.
  for (const statement of descendants(root, 'if_statement')) {
    const body = statement.childForFieldName('body');
    const last = body?.namedChildren.filter((n) => n?.type !== 'comment').at(-1);
    if (last?.type !== 'return_statement') continue;
    for (const clause of statement.namedChildren)
      if (clause?.type === 'elif_clause' || clause?.type === 'else_clause')
        found.push(`no-${clause.type === 'elif_clause' ? 'elif' : 'else'}-return line ${line(clause)}`);
  }
  return found;
}
