// This machine's npm registry mirror holds only some platforms' builds of packages that ship a native binary per
// platform (it answers 404 for the others), so `npm install` writes a lockfile without their entries and `npm ci`
// then refuses it ("Missing: ... from lock file"). This adds the missing entries as the full registry would write
// them: optional, with os/cpu/libc, so npm ci skips them here and fetches them on the platforms that need them.
// Usage: node scripts/lock-platforms.mjs   (after `npm install` of such a package)
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM = {
  'android-arm64': { os: ['android'], cpu: ['arm64'] },
  'android-x64': { os: ['android'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'linux-arm64': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'linux-x64': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'win32-arm64': { os: ['win32'], cpu: ['arm64'] },
  'win32-x64': { os: ['win32'], cpu: ['x64'] },
};

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${name}`;
    if (lock.packages[at] || lock.packages[`${path}/${at}`]) continue;
    const suffix = Object.keys(PLATFORM).find((p) => name.endsWith(`-${p}`));
    if (!suffix) continue;
    lock.packages[at] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...PLATFORM[suffix] };
    added.push(`${name}@${version}`);
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.join(', ')}` : 'nothing missing');
