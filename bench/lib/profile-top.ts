// The top self-time frames of a V8 CPU profile (node --cpu-prof), for BENCHMARKS.md:
//   npx tsx bench/lib/profile-top.ts FILE.cpuprofile [N]
// Self time = samples whose leaf is that frame. Shares are of busy time: (idle) is left out, (program) and
// (garbage collector) are kept (they are work the process did).
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame lives, short: a package name, a repo path, or node's own module. */
function place(url: string): string {
  if (!url) return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (pkg) return `${pkg[1]}/${pkg[2]!.split('/').pop()}`;
  const src = /\/(src|bench)\/(.*)$/.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  return url.replace(/^node:/, 'node:');
}

export async function topFrames(file: string, n = 10): Promise<{ frame: string; ms: number; share: number }[]> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    const us = profile.timeDeltas[i] ?? 0;
    busy += us;
    const key = `${functionName || '(anonymous)'}${url ? ` ${place(url)}:${lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + us);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([frame, us]) => ({ frame, ms: us / 1000, share: us / busy }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, n] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/lib/profile-top.ts FILE.cpuprofile [N]');
  for (const [i, f] of (await topFrames(file, Number(n ?? 10))).entries()) {
    console.log(`| ${i + 1} | ${(f.share * 100).toFixed(1)} % | ${f.ms.toFixed(0)} ms | \`${f.frame}\` |`);
  }
}
