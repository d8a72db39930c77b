// The Subresource Integrity hash of the script-tag build, as docs/script-tag.md quotes it in its pinned CDN tag: a
// page that pins quest-points@<version> with this hash runs exactly the bytes we published, or nothing.
// The build is deterministic and the Unity package carries it byte for byte (test/unity checks the carried copy
// against a fresh build), so the carried copy is what the docs are checked against between releases, and
// `npm run release:dry` checks the fresh build it packs. Usage:
//   node scripts/release/sri.mjs [file]           check the docs quote file's hash (default: the carried build)
//   node scripts/release/sri.mjs --write [file]   write it there (`npm run build:unity` does, after rebuilding)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageVersion, repo } from './versions.mjs';

/** The page that quotes the pinned tag, and the build it quotes by default (identical to dist/global/index.js). */
export const SRI_DOC = 'docs/script-tag.md';
export const CARRIED_BUILD = 'engines/unity/Runtime/Plugins/WebGL/QuestPoints.jspre';

/** `sha384-<base64>` of the bytes, the form an `integrity` attribute takes. */
export function sri(bytes) {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/** The tag a page pins the release with: the file's full path (a bare package URL redirects) and its hash. */
export function pinnedTag(version, integrity) {
  return `<script src="https://cdn.jsdelivr.net/npm/quest-points@${version}/dist/global/index.js" integrity="${integrity}" crossorigin="anonymous"></script>`;
}

/** What is wrong with the docs' pinned tag for the build at `file` (empty when they quote it exactly). */
export function sriProblems(file = join(repo, CARRIED_BUILD)) {
  const expected = pinnedTag(packageVersion(), sri(readFileSync(file)));
  const doc = readFileSync(join(repo, SRI_DOC), 'utf8');
  if (doc.includes(expected)) return [];
  const quoted = /integrity="(sha384-[^"]*)"/.exec(doc)?.[1];
  return [`${SRI_DOC} quotes ${quoted ?? 'no integrity hash'}, the build is ${sri(readFileSync(file))} (run \`npm run build:unity\`): ${expected}`];
}

/** Rewrites the docs' pinned tag for the build at `file`; true when the page changed. */
export function writeSri(file = join(repo, CARRIED_BUILD)) {
  const path = join(repo, SRI_DOC);
  const doc = readFileSync(path, 'utf8');
  const tag = /<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/quest-points@[^"]*" integrity="[^"]*" crossorigin="anonymous"><\/script>/;
  if (!tag.test(doc)) throw new Error(`${SRI_DOC} has no pinned <script ... integrity="..."> tag to update`);
  const next = doc.replace(tag, pinnedTag(packageVersion(), sri(readFileSync(file))));
  if (next !== doc) writeFileSync(path, next);
  return next !== doc;
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const args = process.argv.slice(2);
  const file = args.find((arg) => !arg.startsWith('--'));
  if (args.includes('--write')) writeSri(file && resolve(file));
  const problems = sriProblems(file && resolve(file));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log(`${SRI_DOC} quotes ${sri(readFileSync(file ? resolve(file) : join(repo, CARRIED_BUILD)))}`);
}
