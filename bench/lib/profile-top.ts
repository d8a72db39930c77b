// The top self-time frames of a V8 CPU profile (node --cpu-prof), for BENCHMARKS.md:
//   npx tsx bench/lib/profile-top.ts FILE.cpuprofile [N] [--inclusive=REGEX]
// Self time = samples whose leaf is that frame. Shares are of busy time: (idle) is left out, (program) and
// (garbage collector) are kept (they are work the process did). --inclusive: instead, the time spent in or under
// each frame whose URL or name matches REGEX (async continuations start new stacks, so it undercounts awaits).
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
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

const label = ({ functionName, url, lineNumber }: ProfileNode['callFrame']) =>
  `${functionName || '(anonymous)'}${url ? ` ${place(url)}:${lineNumber + 1}` : ''}`;

export async function topFrames(file: string, n = 10, inclusive?: RegExp): Promise<{ frame: string; ms: number; share: number }[]> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i] ?? 0;
    busy += us;
    if (!inclusive) {
      const key = label(byId.get(id)!.callFrame);
      self.set(key, (self.get(key) ?? 0) + us);
      return;
    }
    // Each matching frame on the sample's stack once (recursion counted once).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!inclusive.test(frame.url) && !inclusive.test(frame.functionName)) continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      self.set(key, (self.get(key) ?? 0) + us);
    }
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([frame, us]) => ({ frame, ms: us / 1000, share: us / busy }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const [file, n] = args.filter((a) => !a.startsWith('--'));
  const inclusive = args.find((a) => a.startsWith('--inclusive='))?.slice('--inclusive='.length);
  if (!file) throw new Error('usage: tsx bench/lib/profile-top.ts FILE.cpuprofile [N] [--inclusive=REGEX]');
  for (const [i, f] of (await topFrames(file, Number(n ?? 10), inclusive ? new RegExp(inclusive) : undefined)).entries()) {
    console.log(`| ${i + 1} | ${(f.share * 100).toFixed(1)} % | ${f.ms.toFixed(0)} ms | \`${f.frame}\` |`);
  }
}
