// npm run chaos: the full run (10,000 awards per sender), both senders on the same seed and faults.
// Options: --awards N --seed S. Prints the table and writes test-results/chaos/chaos-full.json.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { launchChromium } from '../helpers/chromium.js';
import { runChaos, type ChaosRun } from './harness.js';
import { startStack } from './stack.js';
import { formatTable, writeResults } from './summary.js';
import { clean } from './verdict.js';

const { values } = parseArgs({ options: { awards: { type: 'string', default: '10000' }, seed: { type: 'string', default: '20240601' } } });
const awards = Number(values.awards);
const seed = Number(values.seed);
const size = {
  awards,
  disruptions: Math.max(24, Math.round(awards / 100)),
  offlineToggles: Math.max(8, Math.round(awards / 250)),
  stepMs: 25,
  drainTimeoutMs: 900_000,
};

const stack = await startStack();
const browser = await launchChromium();
const runs: ChaosRun[] = [];
try {
  for (const sender of ['ours', 'naive'] as const) {
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
const file = writeResults('chaos-full', { date: new Date().toISOString(), seed, size, machine: { cores: os.cpus().length, node: process.version }, table, runs });
console.log(`\nwritten ${file}`);
// The phase with every tab closed: the worker alone delivered everything that was waiting, and left nothing behind.
const closed = ours.closedTabs;
const closedClean = !closed || (closed.delivered === closed.expected && closed.leftAtReopen === 0);
if (!closedClean) console.log(`CLOSED-TAB PHASE: ${closed!.delivered} of ${closed!.expected} delivered, ${closed!.leftAtReopen} left for the next page`);
process.exitCode = clean(ours.verdict) && closedClean ? 0 : 1;
