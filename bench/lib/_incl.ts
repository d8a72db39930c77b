import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const pattern = new RegExp(process.argv[3] ?? 'src/relay');
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>(); let busy = 0;
p.samples.forEach((id: number, i: number) => {
  const leaf = byId.get(id).callFrame; if (leaf.functionName === '(idle)') return;
  const us = p.timeDeltas[i] ?? 0; busy += us;
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur).callFrame;
    if (!pattern.test(f.url) && !pattern.test(f.functionName)) continue;
    const k = `${f.functionName} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    if (seen.has(k)) continue; seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + us);
  }
});
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 40))) console.log((100 * v / busy).toFixed(1).padStart(5), k);
