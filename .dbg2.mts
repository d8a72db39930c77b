import 'fake-indexeddb/auto';
import { drainAndCheck } from './test/client/model/commands.ts';
import { createSystem, QUEST } from './test/client/model/system.ts';
const sys = createSystem();
globalThis.fetch = (i, init) => sys.workerFetch(i, init);
let tab = sys.openTab();
const rec = (t, u, p) => { const h = t.qp.award({ eventPoints: p, serviceUserId: u }); const r = { user: u, points: p, resolutions: 0 }; t.awards.set(h.idempotencyKey, r); h.persisted.then(ok => r.persisted = ok); h.settled.then(o => { r.outcome = o; r.resolutions++; }); };
rec(tab, 'p1', 1);
tab.closed = true; await tab.qp.close(); tab = sys.openTab();
sys.storage.fail('closed');
const warn = console.warn; 
await sys.startWorker().deliver().catch((e) => console.log('worker:', String(e)));
rec(tab, 'p1', 1);
tab.qp.on('storage:degraded', (e) => console.log('degraded', e.reason));
try { await drainAndCheck(sys); console.log('ok'); } catch (e) { console.log('FAIL', e.message); }
console.log('ledger', [...sys.service.ledger.keys()], 'awards', sys.tabs.map(t => [...t.awards].map(([k, a]) => [k, a.persisted, a.outcome?.outcome])));
console.log('snapshot', tab.qp.getSnapshot());
process.exit(0);
