// The Unity package without Unity: its C# compiled by Debian's mono mcs against a stub of the UnityEngine types it
// uses (as a WebGL player build and as the Editor), every [DllImport] matched by a .jslib function and a harness
// extern of the same name, arity and types, the .jslib parsed as ES5, the carried SDK (.jspre) identical to what the
// build makes now, and every asset with its Unity .meta. The browser side is unity-webgl.test.ts.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourcedSnippets } from '../docs/snippet-sources.js';
import {
  cExterns,
  dispatchCases,
  dllImports,
  jslibAsJavaScript,
  jslibEventTypes,
  jslibFunctions,
  paths,
  repo,
  serializableClasses,
  unity,
} from './sources.js';

const run = promisify(execFile);
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'qp-unity-'));
});
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('the C# and the .jslib agree (no call into a function that is not there)', () => {
  it('every [DllImport] has a .jslib function and a harness extern of the same name and parameter count, and no more', () => {
    const arity = (list: { name: string; params: string[] }[]) => Object.fromEntries(list.map((f) => [f.name, f.params.length]));
    const imports = arity(dllImports());
    console.info(
      `Unity .jslib/C# cross-check: ${Object.keys(imports).length} [DllImport]s, each matched by name and arity: ${JSON.stringify(imports)}`,
    );
    expect(Object.keys(imports).length).toBeGreaterThanOrEqual(8);
    expect(arity(jslibFunctions())).toEqual(imports);
    expect(arity(cExterns())).toEqual(imports);
  });

  it("the harness's C types are what IL2CPP passes for the C# types", () => {
    const param: Record<string, string> = { int: 'int', double: 'double', string: 'const char *', EventCallback: 'QuestPointsEventCallback' };
    const returned: Record<string, string> = { int: 'int', void: 'void', string: 'char*' };
    const externs = new Map(cExterns().map((f) => [f.name, f]));
    for (const imported of dllImports()) {
      const extern = externs.get(imported.name)!;
      expect(extern.returns, imported.name).toBe(returned[imported.returns]);
      expect(
        extern.params.map((p) => p.replace(/\s*\w+$/, '').replace(/\s*\*$/, ' *')),
        imported.name,
      ).toEqual(imported.params.map((p) => param[p.split(/\s+/)[0]!]));
    }
  });

  it("the callback C# hands over has the signature the .jslib calls it with (makeDynCall's 'viii')", () => {
    const csharp = readFileSync(paths.csharp, 'utf8');
    const delegate = /public delegate (\w+) EventCallback\(([^)]*)\)/.exec(csharp)!;
    // In wasm32, int and every pointer (a string is a char*) are an i32.
    const wasm = (type: string) => ({ void: 'v', int: 'i', string: 'i', double: 'd' })[type];
    const signature =
      wasm(delegate[1]!)! +
      delegate[2]!
        .split(',')
        .map((param) => wasm(param.trim().split(/\s+/)[0]!))
        .join('');
    const called = /makeDynCall\('(\w+)', 'entry\.callback'\)/.exec(readFileSync(paths.jslib, 'utf8'))![1];
    expect(called).toBe(signature);
    expect(readFileSync(paths.harness, 'utf8')).toMatch(
      /typedef void \(\*QuestPointsEventCallback\)\(int handle, const char \*type, const char \*json\);/,
    );
    // And the C# passes the static method IL2CPP can call back into, marked for AOT.
    expect(csharp).toMatch(/\[AOT\.MonoPInvokeCallback\(typeof\(EventCallback\)\)\]\s*static void OnEvent\(int handle, string type, string json\)/);
  });

  it('C# reads every event type the .jslib sends, each as a [Serializable] class', () => {
    const cases = dispatchCases();
    expect([...cases.keys()].sort()).toEqual(jslibEventTypes());
    const classes = serializableClasses();
    for (const [type, name] of cases) if (name !== null) expect(classes.has(name), `${type} -> ${name}`).toBe(true);
    // Only 'token' carries nothing C# reads.
    expect([...cases].filter(([, name]) => name === null).map(([type]) => type)).toEqual(['token']);
  });

  it("AwardRejected's payload: every field the .jslib sets (code included, issue 35) is a RejectedAward field C# reads", () => {
    const source = readFileSync(paths.jslib, 'utf8');
    const set = [...source.matchAll(/\brejected\.(\w+) =/g)].map(([, name]) => name!);
    expect(set).toEqual(['status', 'message', 'code']);
    const fields = serializableClasses().get('RejectedAward')!;
    for (const name of set) expect(fields, `the .jslib sets rejected.${name}`).toContain(name);
    expect(dispatchCases().get('rejected')).toBe('RejectedAward');
  });

  it('the config C# serialises is the config the .jslib reads', () => {
    const fields = serializableClasses().get('QuestPointsConfig')!;
    const source = readFileSync(paths.jslib, 'utf8');
    const read = [...new Set([...source.matchAll(/config\.(\w+)/g)].map(([, name]) => name!))];
    for (const name of read) expect(fields, `the .jslib reads config.${name}`).toContain(name);
    for (const field of fields)
      expect(source, `QuestPointsConfig.${field} is never read by the .jslib`).toMatch(new RegExp(`config\\.${field}\\b|'${field}'`));
  });
});

describe('the .jslib is what Unity accepts', () => {
  it('parses as ES5 once its {{{ }}} macros are expanded (and the check does catch ES2015)', () => {
    expect(() => parse(jslibAsJavaScript(), { ecmaVersion: 5 })).not.toThrow();
    expect(() => parse('var f = (a) => a;', { ecmaVersion: 5 })).toThrow();
    expect(() => parse('let a = 1;', { ecmaVersion: 5 })).toThrow();
  });

  it('merges into LibraryManager.library, calls back through makeDynCall, and uses no deprecated helper', () => {
    const source = readFileSync(paths.jslib, 'utf8');
    expect(source).toMatch(/mergeInto\(LibraryManager\.library, \w+\);\s*$/);
    expect(source).toMatch(/\{\{\{ makeDynCall\('viii', 'entry\.callback'\) \}\}\}\(/);
    expect(source).not.toMatch(/Pointer_stringify|[^.\w]dynCall\(|Runtime\.dynCall|allocate\(intArrayFromString/);
    // Every string allocated for C is freed, or returned (IL2CPP frees what it receives).
    expect(source.match(/_malloc\(/g)).toHaveLength(1);
    expect(source.match(/_free\(/g)).toHaveLength(2);
  });
});

describe('the .jspre’s syntax (docs/unity.md, "ES5 or not")', () => {
  it('is ES2017, not ES5: what the emscripten of every supported Unity parses (ES2018 since 2.0.0)', () => {
    const jspre = readFileSync(paths.jspre, 'utf8');
    expect(() => parse(jspre, { ecmaVersion: 2017 })).not.toThrow();
    expect(() => parse(jspre, { ecmaVersion: 5 })).toThrow();
  });
});

describe('what the package carries', () => {
  it('QuestPoints.jspre is the global build of this commit (run `npm run build:unity` after changing the SDK)', async () => {
    const fresh = join(folder, 'global.js');
    await run(process.execPath, [join(repo, 'scripts/build-global.mjs'), fresh]);
    const [built, carried] = await Promise.all([readFile(fresh, 'utf8'), readFile(paths.jspre, 'utf8')]);
    expect(carried === built, 'engines/unity/Runtime/Plugins/WebGL/QuestPoints.jspre is stale: run `npm run build:unity` and commit it').toBe(true);
  });

  it('every file and folder Unity imports has its .meta, with a GUID of its own, and no .meta is orphaned', () => {
    const metas: string[] = [];
    const assets: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        if (name.endsWith('.meta')) metas.push(relative(unity, full).slice(0, -'.meta'.length));
        else if (!name.endsWith('~') && !name.startsWith('.')) {
          assets.push(relative(unity, full));
          if (statSync(full).isDirectory()) walk(full);
        }
      }
    };
    walk(unity);
    expect(metas.sort()).toEqual(assets.sort());
    const guids = metas.map((path) => /^guid: ([0-9a-f]{32})$/m.exec(readFileSync(join(unity, `${path}.meta`), 'utf8'))?.[1]);
    expect(guids.every(Boolean)).toBe(true);
    expect(new Set(guids).size).toBe(guids.length);
    // The plugins are WebGL-only (the Editor never loads them).
    for (const plugin of ['QuestPoints.jslib', 'QuestPoints.jspre'])
      expect(readFileSync(join(unity, 'Runtime/Plugins/WebGL', `${plugin}.meta`), 'utf8')).toMatch(/WebGL: WebGL\n {4}second:\n {6}enabled: 1/);
  });

  it('package.json is a UPM manifest whose sample folder exists', () => {
    const manifest = JSON.parse(readFileSync(join(unity, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      unity: string;
      samples: { path: string }[];
    };
    expect(manifest.name).toMatch(/^com\.[a-z0-9-]+\.[a-z0-9.-]+$/);
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version);
    expect(manifest.unity).toMatch(/^\d{4}\.\d$/);
    for (const sample of manifest.samples) expect(existsSync(join(unity, sample.path)), sample.path).toBe(true);
  });
});

describe("the C# compiles (Debian's mono mcs, a stub of UnityEngine)", () => {
  const sources = () => [
    ...readdirSync(join(unity, 'Runtime'))
      .filter((name) => name.endsWith('.cs'))
      .map((name) => join(unity, 'Runtime', name)),
    ...readdirSync(join(unity, 'Samples~/Basic'))
      .filter((name) => name.endsWith('.cs'))
      .map((name) => join(unity, 'Samples~/Basic', name)),
  ];
  const mcs = (args: string[]) =>
    run('mcs', ['-nologo', ...args]).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`mcs failed:\n${error.stdout}${error.stderr}`);
    });

  it.each([
    ['a WebGL player build', ['-define:UNITY_WEBGL']],
    ['the Editor', ['-define:UNITY_WEBGL', '-define:UNITY_EDITOR']],
    ['another platform', []],
  ])('as %s, with every warning an error', async (label, defines) => {
    const engine = join(folder, 'UnityEngine.dll');
    if (!existsSync(engine)) await mcs(['-target:library', `-out:${engine}`, join(repo, 'test/unity/stubs/UnityEngine.cs')]);
    const out = join(folder, `${label.replace(/\W+/g, '-')}.dll`);
    await mcs(['-target:library', '-warnaserror', '-warn:4', `-r:${engine}`, ...defines, `-out:${out}`, ...sources()]);
    expect(existsSync(out)).toBe(true);
  });

  // The blocks' text is test/docs/snippets.test.ts's check (the project's one snippet mechanism: a marker names the
  // file and region, snippet-sources.ts --write refreshes them); here, that each names a file compiled above.
  it('every C# block of docs/unity.md is a snippet of a file this test compiles', () => {
    const docs = readFileSync(join(repo, 'docs/unity.md'), 'utf8');
    const blocks = [...docs.matchAll(/^```csharp$/gm)].length;
    const sourced = sourcedSnippets().filter((s) => s.doc === 'docs/unity.md');
    expect(blocks).toBeGreaterThan(0);
    expect(sourced.length).toBe(blocks);
    const compiled = sources().map((path) => relative(repo, path));
    for (const snippet of sourced) expect(compiled, `${snippet.source} (docs/unity.md:${snippet.line})`).toContain(snippet.source);
  });
});
