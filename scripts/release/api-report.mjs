// The API report: what each entry of package.json's `exports` declares, as API Extractor reports it, committed
// under etc/ (etc/quest-points.api.md for `.`, etc/quest-points.relay.api.md for `./relay`, ...; an entry's global
// declarations, such as window.QuestPoints, in etc/<name>.globals.d.ts). The report is the
// public API as docs/releases.md defines it, so a change to it is visible in review. Reads the declarations of the
// build (dist/**/*.d.ts: `npm run api:check` and `npm run api:update` build first, as `npm run release:dry` does). Usage:
//   node scripts/release/api-report.mjs            check: exit 1 naming each entry whose types differ from its report
//   node scripts/release/api-report.mjs --update   rewrite the reports from the build (`npm run api:update`)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import ts from 'typescript';

const repo = resolve(import.meta.dirname, '../..');
export const REPORT_FOLDER = 'etc';
const QUIET = new Set(['console-api-report-not-copied', 'console-api-report-copied', 'console-api-report-created']);

/** Each `exports` entry with declarations: its subpath, its .d.ts and the report's base name. */
export function entries() {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([subpath, target]) => ({
      subpath,
      types: join(repo, target.types),
      report: subpath === '.' ? pkg.name : `${pkg.name}.${subpath.slice(2).replace(/[/.]/g, '-')}`,
    }));
}

/** Runs API Extractor over every entry (one TypeScript program for all); the entries whose report differs. */
export function apiReports({ update = false } = {}) {
  const list = entries();
  const missing = list.filter((entry) => !existsSync(entry.types));
  if (missing.length) throw new Error(`no declarations at ${missing.map((entry) => entry.types).join(', ')}: run \`npm run build\` first`);
  const temp = mkdtempSync(join(tmpdir(), 'qp-api-'));
  if (update) mkdirSync(join(repo, REPORT_FOLDER), { recursive: true });
  const configs = list.map((entry) =>
    ExtractorConfig.prepare({
      configObjectFullPath: join(repo, 'api-extractor.json'),
      packageJsonFullPath: join(repo, 'package.json'),
      configObject: {
        projectFolder: repo,
        mainEntryPointFilePath: entry.types,
        compiler: {
          // The declarations as a consumer reads them: a browser game's libs plus Node's types (the server entries).
          overrideTsconfig: {
            compilerOptions: {
              target: 'es2022',
              module: 'nodenext',
              moduleResolution: 'nodenext',
              lib: ['es2023', 'dom', 'dom.iterable'],
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
            files: list.map((e) => e.types),
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${entry.report}.api.md`,
          reportFolder: join(repo, REPORT_FOLDER),
          reportTempFolder: temp,
          // A type the entry uses without exporting it (an option bag, say) is public all the same: in the report.
          includeForgottenExports: true,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          // Release tags (@public/@beta) are not how this package marks its API (docs/releases.md): not asked for.
          extractorMessageReporting: { default: { logLevel: 'none' }, 'ae-missing-release-tag': { logLevel: 'none' } },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
        },
      },
    }),
  );
  const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: list.map((entry) => entry.types) });
  const changed = [];
  try {
    for (const [index, config] of configs.entries()) {
      const result = Extractor.invoke(config, {
        localBuild: update,
        compilerState,
        showVerboseMessages: false,
        printApiReportDiff: !update,
        messageCallback: (message) => {
          // The diff is printed (what changed, for the log of a failed CI run); "copy the file" notices are not.
          if (QUIET.has(message.messageId)) message.handled = true;
          else if (message.logLevel === ExtractorLogLevel.Info || message.logLevel === ExtractorLogLevel.Verbose) message.handled = true;
        },
      });
      if (result.apiReportChanged) changed.push(list[index].subpath);
      else if (!result.succeeded) throw new Error(`API Extractor failed on ${list[index].subpath}`);
    }
    // API Extractor reports exports, not what an entry adds to the global scope (window.QuestPoints, the HUD's tag
    // name): that is snapshotted beside the report, etc/<name>.globals.d.ts.
    for (const entry of list.filter((e) => readFileSync(e.types, 'utf8').includes('declare global'))) {
      const snapshot = join(repo, REPORT_FOLDER, `${entry.report}.globals.d.ts`);
      const declared = globalDeclarations(entry.types);
      if (existsSync(snapshot) && readFileSync(snapshot, 'utf8') === declared) continue;
      changed.push(entry.subpath);
      if (update) writeFileSync(snapshot, declared);
      else console.warn(`${relative(repo, snapshot)} differs from ${relative(repo, entry.types)}, which declares:\n${declared}`);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return changed;
}

/**
 * What a declaration file adds to the global scope, printed without comments (a reworded doc comment is no change to
 * the types): its `declare global` blocks; the whole file when it exports nothing else (quest-points/global's
 * `window.QuestPoints` is typed by a module-local const), since API Extractor then reports nothing of it.
 */
function globalDeclarations(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const printer = ts.createPrinter({ removeComments: true });
  const exportsSomething = source.statements.some(
    (node) =>
      (ts.isExportDeclaration(node) && node.exportClause && !(ts.isNamedExports(node.exportClause) && node.exportClause.elements.length === 0)) ||
      ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export,
  );
  if (!exportsSomething) return printer.printFile(source);
  const blocks = source.statements.filter((node) => ts.isModuleDeclaration(node) && node.flags & ts.NodeFlags.GlobalAugmentation);
  return blocks.map((node) => `${printer.printNode(ts.EmitHint.Unspecified, node, source)}\n`).join('');
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const update = process.argv.includes('--update');
  const started = performance.now();
  const changed = apiReports({ update });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (update) console.log(`API report: ${changed.length ? `updated ${changed.join(', ')}` : 'unchanged'} (${REPORT_FOLDER}/, ${seconds} s)`);
  else if (changed.length) {
    console.error(
      `The public types differ from the API report for ${changed.join(', ')}.\n` +
        'If the change is meant, run `npm run api:update` and commit etc/ (docs/releases.md says what a breaking change is).',
    );
    process.exit(1);
  } else console.log(`API report: every exports entry matches ${REPORT_FOLDER}/ (${seconds} s)`);
}
