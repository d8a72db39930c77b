// One version everywhere. package.json's `version` is the release's number; every other file that states it (the
// Unity package, the Godot plugin, the script-tag builds the engines carry, the docs' pinned URLs) must say the same,
// since OpenUPM publishes only a tag that matches the Unity package's version and a CDN URL pinned to another version
// serves other code. Usage:
//   node scripts/release/versions.mjs            check: exit 1 naming every place that differs from package.json
//   node scripts/release/versions.mjs set 0.2.0  package.json (and its lock) to 0.2.0, then `sync`
//   node scripts/release/versions.mjs sync       package.json's version written everywhere; the carried builds rebuilt
//                                                and the SRI hash docs/script-tag.md quotes refreshed (sri.mjs)
// `npm run version:set -- 0.2.0` and `npm run release:version` (after `changeset version`) call it.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repo = resolve(import.meta.dirname, '../..');
const SEMVER = '\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?';

/**
 * Every place that states the version: a file and a pattern whose first group is the version (every match counts).
 * `build` marks a file written by a build (a carried script-tag build): synced by rebuilding it, never by editing.
 */
export const PLACES = [
  { file: 'package-lock.json', pattern: `^  "version": "(${SEMVER})"` },
  { file: 'package-lock.json', pattern: `^      "version": "(${SEMVER})",\\n      "license"` },
  { file: 'engines/unity/package.json', pattern: `^  "version": "(${SEMVER})"` },
  { file: 'engines/unity/CHANGELOG.md', pattern: `^## (${SEMVER})$`, first: true },
  { file: 'engines/godot/addons/quest_points/plugin.cfg', pattern: `^version="(${SEMVER})"` },
  { file: 'engines/unity/Runtime/Plugins/WebGL/QuestPoints.jspre', pattern: `^/\\*! quest-points (${SEMVER}) `, build: 'build:unity' },
  { file: 'engines/godot/addons/quest_points/web/quest-points.global.js', pattern: `^/\\*! quest-points (${SEMVER}) `, build: 'build:godot' },
  { file: 'docs/script-tag.md', pattern: `quest-points@(${SEMVER})` },
  { file: 'docs/unity.md', pattern: `#v(${SEMVER})\`` },
  { file: 'examples/relay-deno/deno.json', pattern: `npm:/quest-points@\\^(${SEMVER})/` },
  { file: 'docs/relay/deploy.md', pattern: `npm:/quest-points@\\^(${SEMVER})/` },
];

/** package.json's version: the one every other place must state. */
export function packageVersion() {
  return JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version;
}

/** What each place states, in file order ([] for a place that states nothing, itself a fault). */
export function statedVersions() {
  return PLACES.map((place) => {
    const text = readFileSync(join(repo, place.file), 'utf8');
    const found = [...text.matchAll(new RegExp(place.pattern, 'gm'))].map((match) => match[1]);
    return { ...place, found: place.first ? found.slice(0, 1) : found };
  });
}

/** Every disagreement with package.json, one line each (empty when the version is one everywhere). */
export function versionProblems(version = packageVersion()) {
  return statedVersions().flatMap(({ file, found, build }) => {
    if (found.length === 0) return [`${file}: states no version`];
    const wrong = found.filter((stated) => stated !== version);
    const fix = build ? `npm run ${build}` : 'npm run version:set';
    return wrong.length ? [`${file}: says ${[...new Set(wrong)].join(', ')}, package.json ${version} (run \`${fix}\`)`] : [];
  });
}

/** Writes `version` to package.json, then to every place (see `sync`). */
export function setVersion(version) {
  if (!new RegExp(`^${SEMVER}$`).test(version)) throw new Error(`not a semver version: ${version}`);
  const file = join(repo, 'package.json');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^ {2}"version": "[^"]*"/m, `  "version": "${version}"`));
  syncVersion();
}

/** package.json's version written to every place: text edited in place, carried builds rebuilt, the SRI refreshed. */
export function syncVersion() {
  const version = packageVersion();
  for (const place of PLACES.filter((p) => !p.build && !p.first)) {
    const file = join(repo, place.file);
    const text = readFileSync(file, 'utf8');
    const next = text.replace(new RegExp(place.pattern, 'gm'), (all, stated) => all.replace(stated, version));
    if (next !== text) writeFileSync(file, next);
  }
  addUnityChangelogEntry(version);
  for (const place of PLACES.filter((p) => p.build)) execFileSync('npm', ['run', '--silent', place.build], { cwd: repo, stdio: 'inherit' });
}

/** Unity shows the package's own CHANGELOG.md (its changelogUrl): a release adds a heading there that points here. */
function addUnityChangelogEntry(version) {
  const file = join(repo, 'engines/unity/CHANGELOG.md');
  const text = readFileSync(file, 'utf8');
  if (text.includes(`\n## ${version}\n`)) return;
  const entry =
    `## ${version}\n\n- Carries quest-points ${version}'s script-tag build. What changed: ` +
    `https://github.com/quest-points/quest-points/blob/v${version}/CHANGELOG.md\n\n`;
  writeFileSync(file, text.replace(/^## /m, `${entry}## `));
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const [command = 'check', argument] = process.argv.slice(2);
  if (command === 'set' && argument) setVersion(argument);
  else if (command === 'sync') syncVersion();
  else if (command !== 'check') {
    console.error('usage: node scripts/release/versions.mjs [check | set <version> | sync]');
    process.exit(2);
  }
  const problems = versionProblems();
  if (problems.length) {
    console.error(`The version differs between the places that state it:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`version ${packageVersion()}: one in package.json and ${new Set(PLACES.map((p) => p.file)).size} other files`);
}
