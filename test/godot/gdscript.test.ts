// The Godot addon's GDScript, parsed with the tree-sitter-gdscript grammar (npm) in web-tree-sitter (npm): no Godot
// needed. The grammar package ships C sources and native prebuilds, no .wasm, and its own way to make one is
// tree-sitter-cli (which downloads a toolchain): the .wasm is built here with Debian's emscripten (emcc, which CI
// installs for the Unity tests) from the grammar's src/, in a temporary folder, in about a second. Every .gd file of
// the addon parses without an error node; a deliberately broken copy does not (the check can fail); the callbacks
// JavaScript holds are kept in member variables; the autoload has the signals and functions docs/godot.md names. The
// addon, the example and every gdscript block of the docs follow the GDScript style guide as gdlint checks it
// (gdlint.ts: its default rules on this parse).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Language, type Node, Parser } from 'web-tree-sitter';
import { docFiles, root, sourcedSnippets } from '../docs/snippet-sources.js';
import { lintLines, lintTree } from './gdlint.js';

const repo = resolve(import.meta.dirname, '../..');
const addon = join(repo, 'engines/godot/addons/quest_points');
const example = join(repo, 'engines/godot/example/main.gd');
const grammar = join(repo, 'node_modules/tree-sitter-gdscript/src');

let folder: string;
let parser: Parser;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'qp-gdscript-'));
  const wasm = join(folder, 'tree-sitter-gdscript.wasm');
  // tree-sitter's own recipe for a language module (tree-sitter build --wasm): a side module exporting the language.
  await promisify(execFile)(
    'emcc',
    [
      '-o',
      wasm,
      '-Os',
      '-fPIC',
      '-s',
      'WASM=1',
      '-s',
      'SIDE_MODULE=2',
      '-s',
      'EXPORTED_FUNCTIONS=["_tree_sitter_gdscript"]',
      '-I',
      grammar,
      join(grammar, 'parser.c'),
      join(grammar, 'scanner.c'),
    ],
    { cwd: folder },
  ).catch((error: Error) => {
    throw new Error(`building the GDScript grammar needs Debian's emscripten (apt-get install emscripten): ${error.message}`);
  });
  await Parser.init();
  parser = new Parser();
  parser.setLanguage(await Language.load(wasm));
}, 120_000);

afterAll(async () => {
  parser?.delete();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Error and missing nodes of a parse, with their line, as "line N: text". */
function syntaxErrors(source: string): string[] {
  const tree = parser.parse(source)!;
  const found: string[] = [];
  const walk = (node: Node) => {
    if (node.isError || node.isMissing)
      found.push(`line ${node.startPosition.row + 1}: ${node.isMissing ? `missing ${node.type}` : node.text.slice(0, 60)}`);
    for (const child of node.children) if (child) walk(child);
  };
  walk(tree.rootNode);
  tree.delete();
  return found;
}

const scripts = async () => (await readdir(addon)).filter((file) => file.endsWith('.gd')).sort();

describe('the Godot addon’s GDScript (tree-sitter-gdscript)', () => {
  it('every .gd file parses with no syntax error', async () => {
    expect(await scripts()).toEqual(['export_plugin.gd', 'plugin.gd', 'quest_points.gd']);
    for (const file of await scripts()) expect(syntaxErrors(await readFile(join(addon, file), 'utf8')), file).toEqual([]);
  });

  it('the example scene script parses, and docs/godot.md shows it (a snippet block: test/docs/snippets.test.ts checks it is the file)', async () => {
    const source = await readFile(example, 'utf8');
    expect(syntaxErrors(source)).toEqual([]);
    expect(sourcedSnippets().filter((s) => s.doc === 'docs/godot.md' && s.source === 'engines/godot/example/main.gd')).toHaveLength(1);
  });

  it('fails on a broken copy: a colon, a comma or a parenthesis missing', async () => {
    const source = await readFile(join(addon, 'quest_points.gd'), 'utf8');
    // (The grammar is lenient in one place: a function header without its final colon parses; Godot refuses it.)
    const broken = [
      source.replace('\tif not started:\n', '\tif not started\n'),
      source.replace('func award(points: float,', 'func award(points: float'),
      source.replace('match str(args[0]):', 'match str(args[0])'),
      source.replace('signal award_sent(key: String)', 'signal award_sent(key: String'),
      source.replace('_bridge.provideToken(token)', '_bridge.provideToken(token'),
    ];
    for (const copy of broken) {
      expect(copy).not.toBe(source);
      expect(syntaxErrors(copy).length).toBeGreaterThan(0);
    }
  });

  it('keeps every JavaScriptBridge callback in a member variable (an unreferenced one is freed while JS still holds it)', async () => {
    const tree = parser.parse(await readFile(join(addon, 'quest_points.gd'), 'utf8'))!;
    const members = new Set(tree.rootNode.children.filter((n) => n?.type === 'variable_statement').map((n) => n!.childForFieldName('name')!.text));
    const calls = tree.rootNode.descendantsOfType('attribute_call').filter((n) => n?.text.startsWith('create_callback('));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      let node: Node | null = call!;
      while (node && node.type !== 'assignment') node = node.parent;
      expect(node, `${call!.text} is assigned`).not.toBeNull();
      const target = node!.child(0)!.text;
      expect(members, `${call!.text} is kept in ${target}`).toContain(target);
    }
    tree.delete();
  });

  it('the autoload has the signals and functions docs/godot.md gives, and says so once off the web', async () => {
    const tree = parser.parse(await readFile(join(addon, 'quest_points.gd'), 'utf8'))!;
    const named = (type: string) => tree.rootNode.children.filter((n) => n?.type === type).map((n) => n!.childForFieldName('name')!.text);
    expect(named('signal_statement')).toEqual([
      'points_changed',
      'connection_changed',
      'award_queued',
      'award_sent',
      'award_rejected',
      'auth_required',
      'token_needed',
    ]);
    expect(named('function_definition')).toEqual(
      expect.arrayContaining(['start', 'award', 'provide_token', 'get_view', 'get_snapshot', 'flush', 'close']),
    );
    const source = tree.rootNode.text;
    // A rule's refusal carries its code to the game (issue 35): the signal's fourth argument, emitted from the payload.
    expect(source).toMatch(/^signal award_rejected\(key: String, status: int, message: String, code: String\)$/m);
    expect(source).toMatch(
      /var code := str\(payload\.get\("code", ""\)\)\n\t+award_rejected\.emit\(key, int\(payload\["status"\]\), str\(payload\["message"\]\), code\)/,
    );
    // One warning, from one place, and every way in goes through _load_bridge first.
    expect(source.match(/push_warning\(/g)).toHaveLength(1);
    expect(source).toContain('OS.has_feature("web")');
    expect(source).toContain('ClassDB.class_exists("JavaScriptBridge")');
    tree.delete();
  });
});

/** gdlint's findings on a source: its text rules and its tree rules. */
function lint(source: string): string[] {
  const tree = parser.parse(source)!;
  const found = [...lintLines(source), ...lintTree(tree)];
  tree.delete();
  return found;
}

describe('the GDScript style guide (gdlint’s default rules, gdlint.ts)', () => {
  it('the addon and the example scene: no line over 100 columns, no function over 6 returns, names as the guide says', async () => {
    const files = [...(await scripts()).map((file) => join(addon, file)), example];
    const found = await Promise.all(files.map(async (file) => lint(await readFile(file, 'utf8')).map((f) => `${file.slice(repo.length + 1)}: ${f}`)));
    expect(found.flat()).toEqual([]);
  });

  it('every gdscript block of the docs', () => {
    const blocks = docFiles().flatMap((doc) =>
      [...readFileSync(root + doc, 'utf8').matchAll(/^```gdscript\n([\s\S]*?)^```/gm)].map((m) => ({ doc, code: m[1]! })),
    );
    expect(blocks.map((b) => b.doc)).toContain('docs/godot.md');
    for (const block of blocks) expect(lint(block.code), block.doc).toEqual([]);
  });

  it('fails on a copy with a long line, 7 returns, a camelCase function or an else after return', () => {
    const returns = Array.from({ length: 7 }, (_, i) => `\tif x == ${i}:\n\t\treturn ${i}`).join('\n');
    const found = lint(
      `extends Node\n\n\nfunc many(x: int) -> int:\n${returns}\n\treturn -1\n\n\nfunc camelCase() -> void:\n\tprint("${'x'.repeat(100)}")\n\n\n` +
        'func branch(x: int) -> int:\n\tif x > 0:\n\t\treturn 1\n\telse:\n\t\treturn 2\n',
    );
    expect(found).toEqual([
      'max-line-length line 23: 113 columns',
      'max-returns line 4: many has 8 returns',
      'function-name line 22: camelCase',
      'no-else-return line 29',
    ]);
  });
});
