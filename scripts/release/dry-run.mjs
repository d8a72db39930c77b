// `npm run release:dry`: a release rehearsed, nothing published. Builds the package as `npm publish` would (the
// prepack build), checks the version is one everywhere and the public types match the API report, packs it and checks
// the tarball (tarball.mjs: files present and absent, size bounds; publint --strict; attw --profile esm-only), makes
// the Unity package tarball and the Godot addon zip as their stores take them, checks the pinned CDN tag's SRI hash
// against the build it packed, and prints what a real release would publish. CI runs it on every commit.
//   node scripts/release/dry-run.mjs [--out <dir>]   keep the three artifacts in <dir> (default: a temp dir, removed)
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { apiReports } from './api-report.mjs';
import { CARRIED_BUILD, SRI_DOC, sri, sriProblems } from './sri.mjs';
import { tarballProblems } from './tarball.mjs';
import { packageVersion, repo, versionProblems } from './versions.mjs';
import { zip } from './zip.mjs';

const run = promisify(execFile);
const bin = (name) => join(repo, 'node_modules/.bin', name);
const started = performance.now();
const problems = [];
const step = (name, found) => {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${found.length ? '✗' : '✓'} ${name} (${seconds} s)`);
  for (const line of found) console.log(`    ${line}`);
  problems.push(...found);
};

const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 ? resolve(process.argv[outIndex + 1]) : mkdtempSync(join(tmpdir(), 'qp-release-'));
mkdirSync(out, { recursive: true });
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const version = packageVersion();
const tag = `v${version}`;

try {
  // 1. What `npm publish` builds (its prepack), into dist/ as it would.
  await run('npm', ['run', '--silent', 'build'], { cwd: repo });
  const globalBuild = readFileSync(join(repo, 'dist/global/index.js'));
  const banner = /^\/\*! quest-points (\S+) /.exec(globalBuild.toString('utf8', 0, 80))?.[1];
  step(`build; version ${version} everywhere`, [
    ...versionProblems(),
    ...(banner === version ? [] : [`dist/global/index.js's banner says ${banner}, package.json ${version}`]),
    ...(globalBuild.equals(readFileSync(join(repo, CARRIED_BUILD)))
      ? []
      : ['the script-tag build the engines carry is not this build (run `npm run build:unity && npm run build:godot`)']),
  ]);

  // 2. Pack while publint and attw wait; the API report runs meanwhile (it holds this thread).
  const { stdout: packJson } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: repo });
  const packed = JSON.parse(packJson)[0];
  const tarball = join(out, packed.filename);
  const publint = run(bin('publint'), ['run', tarball, '--strict']).then(
    ({ stdout }) => (/All good!/.test(stdout) ? [] : [`publint: ${stdout.trim()}`]),
    (error) => [`publint: ${`${error.stdout}${error.stderr}`.trim()}`],
  );
  const attw = run(bin('attw'), [tarball, '--profile', 'esm-only'], { maxBuffer: 64 << 20 }).then(
    () => [],
    (error) => [`attw: ${error.stdout.trim()}`],
  );
  const changed = apiReports();
  step(
    'API report (etc/) matches the public types',
    changed.map((entry) => `${entry}: its types changed (the diff is above); if meant, run \`npm run api:update\` and commit etc/`),
  );
  step(
    `${packed.filename}: ${packed.entryCount} files, ${kb(packed.size)} packed, ${kb(packed.unpackedSize)} unpacked`,
    tarballProblems(packed, pkg),
  );
  step('publint --strict and attw --profile esm-only', [...(await publint), ...(await attw)]);

  // 3. The Unity package as OpenUPM publishes it from the tag: `npm pack` of engines/unity (a .tgz whose entries sit
  // under package/), its version the tag's. Unity ignores a file without its .meta in an immutable package.
  const unityDir = join(repo, 'engines/unity');
  const unityPkg = JSON.parse(readFileSync(join(unityDir, 'package.json'), 'utf8'));
  const { stdout: unityJson } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: unityDir });
  const unity = JSON.parse(unityJson)[0];
  const { stdout: unityList } = await run('tar', ['-tzf', join(out, unity.filename)]);
  const unityPaths = unityList.trim().split('\n');
  const unityFiles = unityPaths.map((path) => path.replace(/^package\//, ''));
  step(`${unity.filename}: ${unity.entryCount} files, ${kb(unity.size)}`, [
    ...(unityPaths.every((path) => path.startsWith('package/')) ? [] : ['an entry outside package/']),
    ...(unity.version === version ? [] : [`the Unity package says ${unity.version}, the tag ${tag}`]),
    ...['package.json', 'Runtime/Plugins/WebGL/QuestPoints.jspre', 'Runtime/Plugins/WebGL/QuestPoints.jslib', 'CHANGELOG.md']
      .filter((file) => !unityFiles.includes(file))
      .map((file) => `missing ${file}`),
    ...metaProblems(unityFiles),
    ...(unityPkg.samples ?? []).filter((sample) => !unityFiles.some((file) => file.startsWith(`${sample.path}/`))).map((s) => `no ${s.path}`),
  ]);

  // 4. The Godot addon as the Asset Library installs it: addons/quest_points/ at the zip's root, its licence inside.
  const addon = 'engines/godot/addons/quest_points';
  const files = walk(join(repo, addon)).map((path) => ({
    name: `addons/quest_points/${relative(join(repo, addon), path)}`,
    data: readFileSync(path),
  }));
  if (!files.some((file) => /\/LICENSE(\.md)?$/.test(file.name)))
    files.push({ name: 'addons/quest_points/LICENSE', data: readFileSync(join(repo, 'LICENSE')) });
  const godotZip = `quest-points-godot-${version}.zip`;
  writeFileSync(join(out, godotZip), zip(files));
  const cfgVersion = /^version="([^"]*)"/m.exec(readFileSync(join(repo, addon, 'plugin.cfg'), 'utf8'))?.[1];
  step(`${godotZip}: ${files.length} files, ${kb(statSync(join(out, godotZip)).size)}`, [
    ...(cfgVersion === version ? [] : [`plugin.cfg says ${cfgVersion}`]),
    ...['plugin.cfg', 'plugin.gd', 'web/quest-points.global.js']
      .filter((f) => !files.some((file) => file.name === `addons/quest_points/${f}`))
      .map((f) => `missing ${f}`),
  ]);

  // 5. The hash a page pins the CDN build with: of the file in the tarball, quoted by the docs.
  const integrity = sri(globalBuild);
  step(`SRI of dist/global/index.js: ${integrity}, quoted by ${SRI_DOC}`, sriProblems(join(repo, 'dist/global/index.js')));

  // 6. CHANGELOG.md's latest entry is this version (changeset version wrote it), and the tag is still free.
  const changelog = existsSync(join(repo, 'CHANGELOG.md')) ? readFileSync(join(repo, 'CHANGELOG.md'), 'utf8') : '';
  const latest = /^## (\S+)$/m.exec(changelog)?.[1];
  const pending = readdirSync(join(repo, '.changeset')).filter((file) => file.endsWith('.md') && file !== 'README.md');
  step(`CHANGELOG.md's latest entry (${latest}); ${pending.length} changesets pending for the next one`, [
    ...(latest === version ? [] : [`CHANGELOG.md's latest entry is ${latest}, package.json ${version} (run \`npm run release:version\`)`]),
  ]);
  const { stdout: tags } = await run('git', ['tag', '--list', tag], { cwd: repo }).catch(() => ({ stdout: '' }));

  console.log(`
What a real release of ${version} would publish (nothing was published):
  npm      npm publish --provenance --access public   ${packed.filename} (from CI's trusted publisher, with a provenance statement)
  git      git tag ${tag} && git push origin ${tag}      OpenUPM publishes ${unityPkg.name}@${unity.version} from this tag (unsigned: docs/releases.md)${tags.trim() ? `\n           (${tag} exists already: raise the version before releasing)` : ''}
  GitHub   release ${tag} with ${unity.filename} and ${godotZip} (the Godot Asset Library's download)
  CDN      https://cdn.jsdelivr.net/npm/quest-points@${version}/dist/global/index.js  integrity="${integrity}"
  files    ${out}${outIndex > 0 ? '' : ' (removed; keep them with --out <dir>)'}`);
} catch (error) {
  problems.push(String(error?.stack ?? error));
  console.error(error);
} finally {
  if (outIndex < 0) rmSync(out, { recursive: true, force: true });
}
console.log(
  `\nrelease:dry ${problems.length ? `failed: ${problems.length} problems` : 'passed'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exitCode = problems.length ? 1 : 0;

function kb(bytes) {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]))
    .sort();
}

/** Every file and folder of a Unity package outside the hidden `~` folders needs its .meta (the GUID Unity keys it by). */
function metaProblems(paths) {
  const metas = new Set(paths.filter((path) => path.endsWith('.meta')));
  const assets = new Set();
  for (const path of paths.filter((p) => !p.endsWith('.meta') && p !== 'package.json.meta')) {
    const parts = path.split('/');
    if (parts.some((part) => part.endsWith('~'))) continue;
    for (let i = 1; i <= parts.length; i++) assets.add(parts.slice(0, i).join('/'));
  }
  return [...assets].filter((asset) => !metas.has(`${asset}.meta`)).map((asset) => `${asset} has no .meta (Unity would ignore it)`);
}
