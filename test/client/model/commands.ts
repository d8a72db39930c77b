// The commands of the client's model test: what happens to a profile's pages, its storage, its network, its players
// and the deployment in front of the relay, in any order. What must hold after is check.ts. See client.model.test.ts.
import fc from 'fast-check';
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

/** Awards of the tab's own player (`other`: of the other player, which wait for a session of theirs). */
const awards = (other: boolean) =>
  fc.tuple(pick, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 3 })).map(([p, points, times]) =>
    command(`award(${p}${other ? ', for the other player' : ''}, ${points} x${times})`, hasTab, (sys) => {
      const tab = pickAlive(sys, p);
      const u = tab && (other ? USERS.find((x) => x !== tab.player)! : tab.player);
      for (let i = 0; tab && u && i < times; i++) award(tab, u, points);
    }),
  );

/** A dead letter (the `i`th) retried from two tabs at once (or twice in one: `p` = `q`); the keys answered are kept. */
const retryDeadLetters = fc.tuple(fc.nat(5), fc.nat(5), fc.nat(9)).map(([p, q, i]) =>
  command(`retryDeadLetter(${p} and ${q} at once, letter ${i})`, hasTab, async (sys) => {
    const [a, b] = [pickAlive(sys, p), pickAlive(sys, q)];
    const letters = (await a?.qp.deadLetters().catch(() => [])) ?? [];
    const key = letters[i % Math.max(1, letters.length)]?.idempotencyKey;
    if (!a || !b || !key) return;
    const answers = await Promise.allSettled([a.qp.retryDeadLetter(key), b.qp.retryDeadLetter(key)]);
    const keys = sys.retries.get(key) ?? new Set<string>();
    for (const answer of answers) if (answer.status === 'fulfilled') keys.add(answer.value);
    if (keys.size) sys.retries.set(key, keys);
  }),
);

const relayMode = (mode: RelayMode) =>
  command(
    `relay(${mode})`,
    () => true,
    (sys) => {
      sys.relayState.mode = mode;
    },
  );

/** Time passes: awards go, answers come, timers fire. */
const waiting = fc.integer({ min: 0, max: 30 }).map((ms) =>
  command(
    `wait(${ms})`,
    () => true,
    () => sleep(ms),
  ),
);

/** A tab reloads, as its player or (`as`) another (signed out and in). */
const reload = (p: number, as?: User) =>
  command(`reloadTab(${p}${as ? `, as ${as}` : ''})`, hasTab, async (sys) => {
    const tab = pickAlive(sys, p);
    if (!tab) return;
    tab.closed = true;
    await tab.qp.close();
    sys.openTab(as ?? tab.player);
  });

/** Things that happen to a client's pages, its storage, its network and its relay, in any order. */
const base: fc.Arbitrary<Cmd>[] = [
  fc.constant(
    command(
      'openTab',
      (sys) => sys.alive().length < 3,
      (sys) => void sys.openTab(),
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
  pick.map((p) => reload(p)),
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
  awards(false),
  awards(false),
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
  fc.constantFrom<RelayMode>('ok', 'lost', 'retry', 'reject', 'auth').map(relayMode),
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
  waiting,
];

/** Seconds of Retry-After a rate limit asks for: 0 s to 60 days, the edges and the setTimeout limit (24.8 days) among them. */
const retryAfter = fc.oneof(
  fc.constantFrom(0, 1, 60, 3600, 86_400, 2_147_483, 2_147_484, 40 * 86_400, 60 * 86_400),
  fc.integer({ min: 0, max: 60 * 86_400 }),
);

/**
 * The worlds a run may meet beyond the base (tabs, awards, storage, network, the relay's usual answers, the worker):
 * - players: two players on one profile: tabs of either (opened, or a reload as the other), awards for the other
 *   player, the site's session switching player (the worker's token);
 * - retries: dead letters retried from two tabs (or twice in one) at once;
 * - limits: a rate limit with a Retry-After from 0 s to 60 days;
 * - deployment: a proxy's HTML 404, a WAF's bare 403, the relay's origin refusal, each until it heals.
 */
export const WORLDS = {
  players: [
    user.map((u) =>
      command(
        `openTab(${u})`,
        (sys) => sys.alive().length < 3,
        (sys) => void sys.openTab(u),
      ),
    ),
    fc.tuple(pick, user).map(([p, u]) => reload(p, u)),
    awards(true),
    user.map((u) =>
      command(
        `signIn(${u})`,
        () => true,
        (sys) => {
          sys.session.player = u;
        },
      ),
    ),
  ],
  // The service refuses awards for a while (so there are letters), and letters are retried: weighted so a run of ~10
  // commands meets all three.
  retries: [retryDeadLetters, retryDeadLetters, fc.constant(relayMode('reject')), waiting],
  limits: [
    retryAfter.map((seconds) =>
      command(
        `relay(ratelimit, Retry-After ${seconds} s)`,
        () => true,
        (sys) => {
          sys.relayState.mode = 'ratelimit';
          sys.relayState.retryAfterS = seconds;
        },
      ),
    ),
  ],
  deployment: [
    fc.constantFrom<RelayMode>('proxy404', 'waf403', 'origin').map((mode) =>
      command(
        `deployment(${mode})`,
        () => true,
        (sys) => {
          sys.relayState.mode = mode;
        },
      ),
    ),
  ],
} satisfies Record<string, fc.Arbitrary<Cmd>[]>;

export type World = keyof typeof WORLDS;

/** The commands of a run: the base and the worlds asked for (all by default). */
export const commandsOf = (worlds: World[] = Object.keys(WORLDS) as World[]): fc.Arbitrary<Cmd>[] => [...base, ...worlds.flatMap((w) => WORLDS[w])];
