// npm run fuzz: >= 100,000 generated requests against relay and emulator in-process, then >= 100,000 raw requests
// on the wire to a relay process (wire-fuzz.ts). Options: --requests N --wire N (0: skip) --seed S.
// Prints the counts, rates and status histograms; writes test-results/chaos/fuzz-full.json; exit 1 on any failure.
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz.js';
import { heapBack, runWireFuzz } from './wire-fuzz.js';
import { writeResults } from './summary.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    wire: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '20240601' },
  },
});
const seed = Number(values.seed);
const report = await runFuzz({ seed, requests: Number(values.requests) });
const rate = Math.round(report.requests / (report.ms / 1000));
console.log(
  `fuzz, seed ${seed}: ${report.requests} requests (${report.relayRequests} relay, ${report.emulatorRequests} emulator) in ${(report.ms / 1000).toFixed(1)} s, ${rate} requests/s; ${report.unbuildable} not buildable (not sent); ${report.ledgerEntries} ledger entries`,
);
console.log(
  'statuses:',
  Object.entries(report.statuses)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', '),
);
console.log(
  report.failures.length
    ? `FAILURES (first ${report.failures.length}):\n${report.failures.join('\n')}`
    : 'no failures: no 500, no crash, no bypass, ledger invariants hold',
);
const wireCount = Number(values.wire);
const wire = wireCount > 0 ? await runWireFuzz({ seed, requests: wireCount }) : undefined;
if (wire) {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `\nwire fuzz, seed ${seed}: ${wire.requests} raw requests to a relay process in ${(wire.ms / 1000).toFixed(1)} s, ${Math.round(wire.requests / (wire.ms / 1000))} requests/s`,
  );
  console.log(
    'statuses:',
    Object.entries(wire.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', '),
  );
  console.log(
    `heap after a full GC: ${mb(wire.heapBaseline)} after the warm-up, ${mb(wire.heapAfter)} after the run (rss ${mb(wire.rssBaseline)} -> ${mb(wire.rssAfter)}); crashed: ${wire.crashed}`,
  );
  console.log(
    wire.failures.length ? `FAILURES (first ${wire.failures.length}):\n${wire.failures.join('\n')}` : 'no failures: no 500, no crash, still serving',
  );
}
console.log(`written ${writeResults('fuzz-full', { seed, rate, ...report, wire })}`);
process.exitCode = report.failures.length || (wire && (wire.failures.length || !heapBack(wire))) ? 1 : 0;
