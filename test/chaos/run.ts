// npm run chaos: the full run (10,000 awards per sender), both senders on the same seed and faults.
// Options: --awards N --seed S --relays N (default 2 relay processes on one redis-server behind a balancer, with the
// operator's chaos; 0: one in-process relay, as before) --no-rotation (skip the token-secret rotation).
// Prints the table and writes test-results/chaos/chaos-full.json.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { launchChromium } from '../helpers/chromium.js';
import { runChaos, type ChaosRun } from './harness.js';
import { startStack } from './stack.js';
import { formatTable, writeResults } from './summary.js';
import { clean } from './verdict.js';
import { operatorProblems } from './operator-run.js';

const { values } = parseArgs({
  options: {
    awards: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '20240601' },
    relays: { type: 'string', default: '2' },
    'no-rotation': { type: 'boolean', default: false },
    sender: { type: 'string', multiple: true },
  },
});
const relays = Number(values.relays);
const senders = (values.sender ?? ['ours', 'naive']) as ('ours' | 'naive')[];
const awards = Number(values.awards);
const seed = Number(values.seed);
const size = {
  awards,
  disruptions: Math.max(24, Math.round(awards / 100)),
  offlineToggles: Math.max(8, Math.round(awards / 250)),
  stepMs: 25,
  // With two relay processes, Redis and a shared limit on a loaded 2-core machine the drain took over 900 s.
  drainTimeoutMs: 1_800_000,
  ...(relays > 0 ? { operator: { rotation: !values['no-rotation'] } } : {}),
};

const stack = await startStack(relays > 0 ? { operator: { relays } } : {});
const browser = await launchChromium();
const runs: ChaosRun[] = [];
try {
  for (const sender of senders) {
    runs.push(await runChaos(stack, browser, { ...size, sender, seed, log: (line) => console.log(line) }));
  }
} finally {
  await browser.close();
  await stack.close();
}
const table = formatTable(runs);
console.log(`\nchaos run, seed ${seed}, ${awards} awards per sender, ${new Date().toISOString()}, ${os.cpus().length} cores\n`);
console.log(table);
const ours = runs[0]!;
for (const key of ours.verdict.lostKeys) console.log(`LOST ${key}`);
for (const key of ours.verdict.duplicatedKeys) console.log(`DUPLICATED ${key}`);
for (const problem of ours.verdict.problems.slice(0, 50)) console.log(`PROBLEM ${problem}`);
if (ours.pageErrors.length) console.log(`page errors: ${ours.pageErrors.slice(0, 20).join('\n')}`);
const file = writeResults('chaos-full', {
  date: new Date().toISOString(),
  seed,
  size,
  machine: { cores: os.cpus().length, node: process.version },
  table,
  runs,
});
console.log(`\nwritten ${file}`);
// The phase with every tab closed: the worker alone delivered everything that was waiting, and left nothing behind.
const closed = ours.closedTabs;
const closedClean = !closed || (closed.delivered === closed.expected && closed.leftAtReopen === 0);
if (!closedClean)
  console.log(`CLOSED-TAB PHASE: ${closed!.delivered} of ${closed!.expected} delivered, ${closed!.leftAtReopen} left for the next page`);
const operatorClean = !ours.operator || operatorProblems(ours.operator).length === 0;
for (const problem of ours.operator ? operatorProblems(ours.operator) : []) console.log(`OPERATOR ${problem}`);
process.exitCode = clean(ours.verdict) && closedClean && operatorClean ? 0 : 1;
