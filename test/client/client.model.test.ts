// A model-based test of the whole client (fast-check commands, test/client/model/): tabs opening, closing, reloading
// and crashing on one storage name, IndexedDB failing (quota, a closed connection) and recovering, the relay answering
// ok / losing the acknowledgement / asking for a retry / refusing / 401, offline and online, pairs watched and
// unwatched, the service worker draining, flushes and time passing, in any order. After each run drains: every award
// whose `persisted` resolved true is in the ledger or dead-lettered (never both, never neither), every `settled` of
// an open tab resolved once (sent or rejected, as the ledger says) with one award:sent, each tab's totals equal the
// ledger, and its tracked pairs are the ones watched. `npm run model -- --runs N` runs more (BENCHMARKS-free: the
// seed is printed for a replay).
import { expect, it } from 'vitest';
import { runModel } from './model/run.js';

it('no award is lost and every award is told once, whatever happens to the tabs, the storage and the relay (300 sequences)', async () => {
  const details = await runModel({ numRuns: 300, maxCommands: 20 });
  expect(details.failed ? (details.errorInstance as Error)?.message + ` (seed ${details.seed}, path ${details.counterexamplePath})` : 'passed').toBe(
    'passed',
  );
}, 180_000);
