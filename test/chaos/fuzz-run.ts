// npm run fuzz: >= 100,000 generated requests against relay and emulator. Options: --requests N --seed S.
// Prints the count, rate and status histogram; writes test-results/chaos/fuzz-full.json; exit 1 on any failure.
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz.js';
import { writeResults } from './summary.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '100000' }, seed: { type: 'string', default: '20240601' } } });
const seed = Number(values.seed);
const report = await runFuzz({ seed, requests: Number(values.requests) });
const rate = Math.round(report.requests / (report.ms / 1000));
console.log(`fuzz, seed ${seed}: ${report.requests} requests (${report.relayRequests} relay, ${report.emulatorRequests} emulator) in ${(report.ms / 1000).toFixed(1)} s, ${rate} requests/s; ${report.unbuildable} not buildable (not sent); ${report.ledgerEntries} ledger entries`);
console.log('statuses:', Object.entries(report.statuses).map(([s, n]) => `${s}: ${n}`).join(', '));
console.log(report.failures.length ? `FAILURES (first ${report.failures.length}):\n${report.failures.join('\n')}` : 'no failures: no 500, no crash, no bypass, ledger invariants hold');
console.log(`written ${writeResults('fuzz-full', { seed, rate, ...report })}`);
process.exitCode = report.failures.length ? 1 : 0;
