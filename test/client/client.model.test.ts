// A model-based test of the whole client (fast-check commands, test/client/model/): tabs opening, closing, reloading
// and crashing on one storage name, IndexedDB failing (quota, a closed connection) and recovering, the relay answering
// ok / losing the acknowledgement / asking for a retry / refusing / 401, offline and online, pairs watched and
// unwatched, the service worker draining, flushes and time passing, in any order; and the worlds of a deployment
// (commands.ts WORLDS): two players on one profile (tabs of either, awards for the other, the site's session
// switching), dead letters retried from two tabs at once, a Retry-After from 0 s to 60 days, a proxy's HTML 404, a
// WAF's 403 and the relay's origin refusal until they heal. After each run drains: no award applied twice (across the
// keys its retries derive), every award whose `persisted` resolved true is in the ledger or dead-lettered, no dead
// letter but the service's own refusal, no timer past setTimeout's limit, every `settled` of an open tab resolved once
// (sent or rejected, as the ledger says) with one award:sent, each tab's totals equal the ledger, and its tracked pairs
// are the ones watched. `npm run model -- --runs N [--worlds ...]` runs more (the seed is printed for a replay).
import { expect, it } from 'vitest';
import { runModel } from './model/run.js';

it('no award is lost and every award is told once, whatever happens to the tabs, the storage and the relay (300 sequences)', async () => {
  const details = await runModel({ numRuns: 300, maxCommands: 20 });
  expect(details.failed ? (details.errorInstance as Error)?.message + ` (seed ${details.seed}, path ${details.counterexamplePath})` : 'passed').toBe(
    'passed',
  );
}, 180_000);
