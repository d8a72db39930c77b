// One version everywhere and the pinned CDN tag's hash, checked on every test run (cheap: no build): the same checks
// `npm run release:dry` runs against a fresh build before a release.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sri, sriProblems, SRI_DOC, CARRIED_BUILD } from '../../scripts/release/sri.mjs';
import { zip } from '../../scripts/release/zip.mjs';
import { PACKAGE_BOUNDS, tarballProblems } from '../../scripts/release/tarball.mjs';
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

describe("the tarball rule (test/package and release:dry's)", () => {
  const file = (path: string) => ({ path, size: 1 });
  const base = ['LICENSE', 'README.md', 'package.json', 'dist/cli.js', 'dist/cli.d.ts', 'dist/client/index.js', 'dist/client/index.d.ts'];
  const pkg = {
    exports: { '.': { types: './dist/client/index.d.ts', default: './dist/client/index.js' } },
    bin: { 'quest-points': './dist/cli.js' },
  };
  const packed = (paths: string[], size = 1000, unpackedSize = 3000) => ({
    filename: 'x.tgz',
    size,
    unpackedSize,
    entryCount: paths.length,
    files: paths.map(file),
  });

  it('passes a lean tarball and names each fault of a bad one', () => {
    expect(tarballProblems(packed(base), pkg)).toEqual([]);
    expect(
      tarballProblems(
        packed(
          [...base.filter((p) => p !== 'dist/cli.d.ts'), 'dist/client/index.js.map', 'dist/demo/index.js', 'dist/demo/index.d.ts'],
          PACKAGE_BOUNDS.packed + 1,
          PACKAGE_BOUNDS.unpacked + 1,
        ),
        { ...pkg, exports: { ...pkg.exports, './hud': { types: './dist/hud/index.d.ts', default: './dist/hud/index.js' } } },
      ),
    ).toEqual([
      'unexpected dist/client/index.js.map',
      'demo build shipped: dist/demo/index.js',
      'demo build shipped: dist/demo/index.d.ts',
      'dist/cli.js has no dist/cli.d.ts',
      'package.json names ./dist/hud/index.d.ts, not in the tarball',
      'package.json names ./dist/hud/index.js, not in the tarball',
      `packed ${PACKAGE_BOUNDS.packed + 1} B, bound ${PACKAGE_BOUNDS.packed} B`,
      `unpacked ${PACKAGE_BOUNDS.unpacked + 1} B, bound ${PACKAGE_BOUNDS.unpacked} B`,
    ]);
  });
});

describe("the Godot addon's zip", () => {
  it('holds each file deflated under its name, read back through the central directory as an unzip tool does', () => {
    const files = [
      { name: 'addons/quest_points/plugin.cfg', data: Buffer.from('[plugin]\nversion="1.2.3"\n') },
      { name: 'addons/quest_points/web/é.js', data: Buffer.from('x'.repeat(10_000)) },
    ];
    const archive = zip(files);
    const end = archive.length - 22;
    expect(archive.readUInt32LE(end)).toBe(0x06054b50);
    expect(archive.readUInt16LE(end + 10)).toBe(2);
    let at = archive.readUInt32LE(end + 16);
    const read = [];
    for (let i = 0; i < 2; i++) {
      expect(archive.readUInt32LE(at)).toBe(0x02014b50);
      const [size, nameLength, local] = [archive.readUInt32LE(at + 20), archive.readUInt16LE(at + 28), archive.readUInt32LE(at + 42)];
      const name = archive.toString('utf8', at + 46, at + 46 + nameLength);
      const start = local + 30 + archive.readUInt16LE(local + 26);
      const data = inflateRawSync(archive.subarray(start, start + size));
      expect(archive.readUInt32LE(at + 16)).toBe(crc32(data));
      read.push({ name, data });
      at += 46 + nameLength;
    }
    expect(read).toEqual(files);
    expect(zip(files).equals(archive)).toBe(true); // the same files, the same bytes
  });
});
