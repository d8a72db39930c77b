// One version everywhere and the pinned CDN tag's hash, checked on every test run (cheap: no build): the same checks
// `npm run release:dry` runs against a fresh build before a release.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sri, sriProblems, SRI_DOC, CARRIED_BUILD } from '../../scripts/release/sri.mjs';
import { PLACES, packageVersion, repo, statedVersions, versionProblems } from '../../scripts/release/versions.mjs';

describe('one version everywhere', () => {
  it("every place states package.json's version (run `npm run version:set -- <version>` to change it)", () => {
    expect(versionProblems()).toEqual([]);
  });

  it('every place states it at least once, so the check above cannot pass on a pattern that finds nothing', () => {
    for (const place of statedVersions()) expect(place.found.length, `${place.file}: ${place.pattern}`).toBeGreaterThan(0);
    // Another version is reported in every file, each naming the command that fixes it.
    const problems = versionProblems('99.0.0');
    expect(problems).toHaveLength(PLACES.length);
    expect(problems[0]).toMatch(/^package-lock\.json: says \d+\.\d+\.\d+\S*, package\.json 99\.0\.0 \(run `npm run version:set`\)$/);
    expect(problems.find((line) => line.startsWith('engines/unity/Runtime'))).toMatch(/run `npm run build:unity`/);
  });

  it("the Unity package's CHANGELOG names this version first (Unity's Package Manager shows it)", () => {
    expect(readFileSync(join(repo, 'engines/unity/CHANGELOG.md'), 'utf8')).toMatch(
      new RegExp(`^# Changelog\\n\\n## ${packageVersion().replace(/\./g, '\\.')}\\n`),
    );
  });
});

describe(`${SRI_DOC}'s pinned tag`, () => {
  it('quotes the sha384 of the script-tag build (run `npm run build:unity` after changing the SDK)', () => {
    expect(sriProblems()).toEqual([]);
  });

  it('is an integrity hash of these bytes: a byte more is another hash, and the check names it', () => {
    const carried = readFileSync(join(repo, CARRIED_BUILD));
    expect(sri(carried)).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    expect(sri(Buffer.concat([carried, Buffer.from('\n')]))).not.toBe(sri(carried));
    // The check against another file (the package.json, say) fails and says what to run.
    expect(sriProblems(join(repo, 'package.json'))).toEqual([expect.stringMatching(/^docs\/script-tag\.md quotes .*run `npm run build:unity`/)]);
  });
});
