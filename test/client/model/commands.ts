// The commands of the client's model test, and what must hold once a run has drained. See client.model.test.ts.
import fc from 'fast-check';
import { pointsKey } from '../../../src/client/pair.js';
import { VANISHED_MS } from '../../../src/client/mirror.js';
import { QUEST, USERS, type RelayMode, type System, type Tab, type User } from './system.js';

type Cmd = fc.AsyncCommand<System, System>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const pickAlive = (sys: System, pick: number): Tab | undefined => {
  const alive = sys.alive();
  return alive[pick % Math.max(1, alive.length)];
};
const hasTab = (sys: System) => sys.alive().length > 0;

/** Each command names itself for the counterexample fast-check prints (and `--replay` reruns). */
function command(name: string, check: (sys: System) => boolean, run: (sys: System) => Promise<void> | void): Cmd {
  return { check, run: async (_model, sys) => run(sys), toString: () => name };
}

function award(tab: Tab, user: User, points: number) {
  const handle = tab.qp.award({ eventPoints: points, serviceUserId: user });
  const record: Tab['awards'] extends Map<string, infer V> ? V : never = { user, points, resolutions: 0 };
  tab.awards.set(handle.idempotencyKey, record);
  void handle.persisted.then((ok) => {
    record.persisted = ok;
  });
  void handle.settled.then((outcome) => {
    record.outcome = outcome;
    record.resolutions++;
  });
}

function unwatch(tab: Tab, user: User) {
  tab.watches.get(user)?.pop()?.();
  if (!tab.watches.get(user)?.length) tab.watches.delete(user);
}

const user = fc.constantFrom(...USERS);
const pick = fc.nat(5);

const awards = fc.tuple(pick, user, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 3 })).map(([p, u, points, times]) =>
  command(`award(${p}, ${u}, ${points} x${times})`, hasTab, (sys) => {
    const tab = pickAlive(sys, p);
    for (let i = 0; tab && i < times; i++) award(tab, u, points);
  }),
);

/** Things that happen to a client's pages, its storage, its network and its relay, in any order. */
export const commands: fc.Arbitrary<Cmd>[] = [
  // Two players on one profile: a tab is opened for either (a shared computer, a logout and login).
  user.map((u) =>
    command(
      `openTab(${u})`,
      (sys) => sys.alive().length < 3,
      (sys) => void sys.openTab(u),
    ),
  ),
  // The site's session switches player: the worker's tokenUrl answers the other's token from now on.
  user.map((u) =>
    command(
      `signIn(${u})`,
      () => true,
      (sys) => {
        sys.session.player = u;
      },
    ),
  ),
  pick.map((p) =>
    command(`closeTab(${p})`, hasTab, async (sys) => {
      const tab = pickAlive(sys, p);
      if (!tab) return;
      tab.closed = true;
      await tab.qp.close();
    }),
  ),
  // A reload, possibly as another player (signed out and in): `u` is the new page's player.
  fc.tuple(pick, fc.option(user, { nil: undefined })).map(([p, u]) =>
    command(`reloadTab(${p}${u ? `, as ${u}` : ''})`, hasTab, async (sys) => {
      const tab = pickAlive(sys, p);
      if (!tab) return;
      tab.closed = true;
      await tab.qp.close();
      sys.openTab(u ?? tab.player);
    }),
  ),
  // A crash: the tab's requests fail from now on and it stops without waiting for anything it began.
  pick.map((p) =>
    command(`crashTab(${p})`, hasTab, (sys) => {
      const tab = pickAlive(sys, p);
      if (!tab) return;
      tab.dead = true;
      tab.closed = true;
      void tab.qp.close();
    }),
  ),
  awards,
  awards,
  pick.map((p) =>
    command(`flush(${p})`, hasTab, (sys) => {
      const tab = pickAlive(sys, p);
      if (tab) void tab.qp.flush();
    }),
  ),
  fc.tuple(pick, user).map(([p, u]) =>
    command(`watch(${p}, ${u})`, hasTab, (sys) => {
      const tab = pickAlive(sys, p);
      if (!tab) return;
      const stops = tab.watches.get(u) ?? [];
      stops.push(tab.qp.watchPoints(QUEST, u, () => {}));
      tab.watches.set(u, stops);
    }),
  ),
  fc.tuple(pick, user).map(([p, u]) =>
    command(`unwatch(${p}, ${u})`, hasTab, (sys) => {
      const tab = pickAlive(sys, p);
      if (tab) unwatch(tab, u);
    }),
  ),
  fc.constantFrom<'quota' | 'closed'>('quota', 'closed').map((kind) =>
    command(
      `storageFails(${kind})`,
      () => true,
      (sys) => sys.storage.fail(kind),
    ),
  ),
  fc.constant(
    command(
      'storageRecovers',
      () => true,
      (sys) => sys.storage.recover(),
    ),
  ),
  fc.constantFrom<RelayMode>('ok', 'lost', 'retry', 'reject', 'auth').map((mode) =>
    command(
      `relay(${mode})`,
      () => true,
      (sys) => {
        sys.relayState.mode = mode;
      },
    ),
  ),
  fc.boolean().map((offline) =>
    command(
      offline ? 'offline' : 'online',
      () => true,
      (sys) => {
        sys.relayState.offline = offline;
      },
    ),
  ),
  fc.constant(
    command(
      'workerDrains',
      () => true,
      async (sys) => {
        // The worker tells its console why it gave an event up (storage failing, the budget spent): expected here.
        const warn = console.warn;
        console.warn = () => {};
        await sys
          .startWorker()
          .deliver()
          .catch(() => {})
          .finally(() => {
            console.warn = warn;
          });
      },
    ),
  ),
  fc.integer({ min: 0, max: 30 }).map((ms) =>
    command(
      `wait(${ms})`,
      () => true,
      () => sleep(ms),
    ),
  ),
];

/** The clock the client reads (Date.now), which a run may move forward at once, as if the page had waited. */
const realNow = Date.now.bind(Date);
const clock = { offset: 0 };
Date.now = () => realNow() + clock.offset;

/**
 * The network, the relay and the storage work again; the tabs (or a new one, if none is left) flush until the queue is
 * empty and every award of an open tab has settled. Then what must hold, whatever happened before.
 */
export async function drainAndCheck(sys: System): Promise<void> {
  sys.storage.recover();
  sys.relayState.mode = 'ok';
  sys.relayState.offline = false;
  // Every player comes back: another player's awards wait for a session of theirs.
  for (const u of USERS) if (!sys.alive().some((t) => t.player === u)) sys.openTab(u);
  const started = Date.now();
  let jumped = false;
  for (;;) {
    const alive = sys.alive();
    await Promise.all(alive.map((t) => t.qp.flush()));
    const queued = await alive[0]!.qp.pending();
    const waiting = alive.flatMap((t) => [...t.awards].filter(([, a]) => !a.outcome).map(([k]) => k));
    // A degraded tab's pending() holds its own awards only: the store is read once every tab has recovered (its poll).
    const recovered = alive.every((t) => t.qp.getSnapshot().storage !== 'degraded');
    if (recovered && !queued.length && !waiting.length && alive.every((t) => t.qp.getSnapshot().queueSize === 0)) break;
    // A crashed tab may hold the lease, or have settled awards without telling: that resolves with time.
    if (!jumped && Date.now() - started > 500) {
      clock.offset += VANISHED_MS + 10_000;
      jumped = true;
    }
    if (Date.now() - started > 20_000 + (jumped ? VANISHED_MS + 10_000 : 0))
      throw new Error(`not drained: ${queued.length} queued, ${waiting.length} awards of open tabs unsettled (${waiting.join(', ')})`);
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
  // A dead letter only for the award's own fault: the service refused it (never another player's, never the deployment's).
  for (const d of letters)
    if (!sys.service.refused.has(d.idempotencyKey))
      fail(`award ${d.idempotencyKey} dead-lettered, not refused by the service: ${d.status} ${d.message}`);
  for (const tab of sys.tabs)
    for (const [key, a] of tab.awards) {
      // Nothing persisted is lost: applied (once: the ledger is by key) or refused for good, never both.
      if (a.persisted === true && ledger.has(key) === dead.has(key))
        fail(`award ${key} persisted: in the ledger ${ledger.has(key)}, dead-lettered ${dead.has(key)}`);
      if (a.resolutions > 1) fail(`award ${key}: settled resolved ${a.resolutions} times`);
      if ((tab.sentEvents.get(key) ?? 0) > 1) fail(`award ${key}: award:sent ${tab.sentEvents.get(key)} times`);
      if (a.outcome?.outcome === 'sent' && !ledger.has(key)) fail(`award ${key} settled as sent, not in the ledger`);
      if (a.outcome?.outcome === 'rejected' && ledger.has(key)) fail(`award ${key} settled as rejected, in the ledger`);
      // Its dead letter is stored unless storage failed for the whole life of a tab that closed before it could write
      // (then `persisted` told the game false, and nothing of the award could be kept).
      if (a.outcome?.outcome === 'rejected' && !dead.has(key) && (a.persisted || !tab.closed))
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
