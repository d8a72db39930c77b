// What must hold once a model run has drained (see client.model.test.ts): nothing lost, nothing applied twice, no
// dead letter that is not the award's own fault, every award told once, the views equal to the ledger, and no timer
// past what setTimeout can hold (a longer one fires at once: a tight loop).
import { pointsKey } from '../../../src/client/pair.js';
import { VANISHED_MS } from '../../../src/client/mirror.js';
import { QUEST, USERS, type System, type User } from './system.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The clock the client reads (Date.now), which a run may move forward at once, as if the page had waited. */
const realNow = Date.now.bind(Date);
const clock = { offset: 0 };
Date.now = () => realNow() + clock.offset;

/** The most setTimeout holds (2^31-1 ms, 24.8 days); a longer delay fires at once (Node and browsers alike). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Delays asked of setTimeout past MAX_TIMER_MS during the run. */
const overflows: number[] = [];
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  if ((ms ?? 0) > MAX_TIMER_MS) {
    overflows.push(ms!);
    // As Node would (it warns and waits 1 ms), without the warning on every one.
    ms = 1;
  }
  return realSetTimeout(fn, ms, ...args);
}) as typeof setTimeout;
/** A new run: no overflow yet. */
export const startRun = () => void overflows.splice(0);

/**
 * The network, the relay and the storage work again; the tabs (or a new one, if none is left) flush until the queue is
 * empty and every award of an open tab has settled. Then what must hold, whatever happened before.
 */
export async function drainAndCheck(sys: System): Promise<void> {
  sys.storage.recover();
  sys.relayState.mode = 'ok';
  sys.relayState.offline = false;
  if (!sys.alive().length) sys.openTab();
  const started = Date.now();
  let jumped = false;
  for (;;) {
    const alive = sys.alive();
    await Promise.all(alive.map((t) => t.qp.flush()));
    const queued = await alive[0]!.qp.pending();
    const waiting = alive.flatMap((t) => [...t.awards].filter(([, a]) => !a.outcome).map(([k]) => k));
    // Every player with awards waiting comes back: another player's awards wait for a session of theirs.
    const players = new Set([
      ...queued.map((a) => a.serviceUserId),
      ...alive.flatMap((t) => [...t.awards.values()].filter((a) => !a.outcome).map((a) => a.user)),
    ]);
    for (const u of USERS) if (players.has(u as User) && !alive.some((t) => t.player === u)) sys.openTab(u);
    // A degraded tab's pending() holds its own awards only: the store is read once every tab has recovered (its poll).
    const recovered = alive.every((t) => t.qp.getSnapshot().storage !== 'degraded');
    if (recovered && !queued.length && !waiting.length && alive.every((t) => t.qp.getSnapshot().queueSize === 0)) break;
    // A crashed tab may hold the lease, or have settled awards without telling: that resolves with time.
    if (!jumped && Date.now() - started > 500) {
      clock.offset += VANISHED_MS + 10_000;
      jumped = true;
    }
    if (Date.now() - started > 20_000 + (jumped ? VANISHED_MS + 10_000 : 0))
      throw new Error(
        `not drained: ${queued.length} queued, ${waiting.length} awards of open tabs unsettled (${waiting.join(', ')}); tabs (storage, queueSize): ${alive
          .map((t) => `${sys.tabs.indexOf(t)} ${t.qp.getSnapshot().storage} ${t.qp.getSnapshot().queueSize}`)
          .join('; ')}`,
      );
    await sleep(20);
  }
  await check(sys);
}

async function check(sys: System) {
  const alive = sys.alive();
  const letters = await alive[0]!.qp.deadLetters();
  const dead = new Set(letters.map((d) => d.idempotencyKey));
  const { ledger } = sys.service;
  const fail = (message: string) => {
    throw new Error(message);
  };
  if (overflows.length) fail(`setTimeout asked for ${overflows[0]} ms (past ${MAX_TIMER_MS}: it fires at once, a tight loop)`);
  // A dead letter only for the award's own fault: the service refused it (never another player's, never the deployment's).
  for (const d of letters)
    if (!sys.service.refused.has(d.idempotencyKey))
      fail(`award ${d.idempotencyKey} dead-lettered, not refused by the service: ${d.status} ${d.message}`);
  // An award's keys: its own, and those its dead letter was retried under (and theirs, retried again).
  const chain = (key: string): string[] => [key, ...[...(sys.retries.get(key) ?? [])].flatMap(chain)];
  for (const tab of sys.tabs)
    for (const [key, a] of tab.awards) {
      const keys = chain(key);
      const applied = keys.filter((k) => ledger.has(k));
      // Never applied twice: one award, one entry in the ledger, whichever of its keys (two retries at once included).
      if (applied.length > 1) fail(`award ${key} applied ${applied.length} times: under ${applied.join(', ')}`);
      // Nothing persisted is lost: applied, or a dead letter (its own, or its retry's); never both for one key.
      if (a.persisted === true && !applied.length && !keys.some((k) => dead.has(k)))
        fail(`award ${key} persisted: not in the ledger, no dead letter (keys ${keys.join(', ')})`);
      if (a.persisted === true && ledger.has(key) && dead.has(key)) fail(`award ${key} persisted: in the ledger and dead-lettered`);
      if (a.resolutions > 1) fail(`award ${key}: settled resolved ${a.resolutions} times`);
      if ((tab.sentEvents.get(key) ?? 0) > 1) fail(`award ${key}: award:sent ${tab.sentEvents.get(key)} times`);
      if (a.outcome?.outcome === 'sent' && !ledger.has(key)) fail(`award ${key} settled as sent, not in the ledger`);
      if (a.outcome?.outcome === 'rejected' && ledger.has(key)) fail(`award ${key} settled as rejected, in the ledger`);
      // Its dead letter is stored unless storage failed for the whole life of a tab that closed before it could write
      // (then `persisted` told the game false, and nothing of the award could be kept).
      if (a.outcome?.outcome === 'rejected' && !keys.some((k) => dead.has(k) || sys.retries.has(k)) && (a.persisted || !tab.closed))
        fail(`award ${key} settled as rejected, no dead letter`);
      if (tab.closed) continue;
      // An open tab: every award settled (sent or refused), told once.
      if (!a.outcome || a.outcome.outcome === 'closed') fail(`award ${key} of an open tab: settled ${a.outcome?.outcome}`);
      if (a.outcome?.outcome === 'sent' && tab.sentEvents.get(key) !== 1) fail(`award ${key} sent without its award:sent`);
    }
  for (const tab of alive) {
    // Tracked pairs are the own pair and the watched ones.
    const watched = [pointsKey(QUEST, tab.player), ...[...tab.watches.keys()].map((u) => pointsKey(QUEST, u))];
    const shown = Object.keys(tab.qp.getSnapshot().points).sort();
    if (shown.join() !== [...new Set(watched)].sort().join()) fail(`snapshot pairs ${shown} but watched ${watched}`);
    // The totals equal the ledger.
    for (const u of new Set<User>([tab.player, ...tab.watches.keys()])) {
      const view = await tab.qp.fetchPoints(QUEST, u);
      if (view.totalPoints !== sys.service.total(u))
        fail(
          `${u}: tab ${sys.tabs.indexOf(tab)} of ${sys.tabs.length} shows ${view.totalPoints} (confirmed ${view.confirmedPoints}, sent ${view.sentPoints}, pending ${view.pendingPoints}), the ledger holds ${sys.service.total(u)}`,
        );
    }
    // A drain that threw is a bug (a lease the store cannot write is told as 'lock', and may happen here).
    const thrown = tab.errors.filter((e) => e.during === 'flush');
    if (thrown.length) fail(`a drain threw: ${thrown.map((e) => String(e.error)).join('; ')}`);
  }
}
