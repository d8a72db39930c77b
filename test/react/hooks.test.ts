// @vitest-environment happy-dom
// The React binding against the real SDK (memory storage) and a scripted relay that keeps a ledger, in happy-dom.
import { act, createElement, StrictMode, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pointsKey, QuestPointsError, type DeadLetter, type PointsView, type QuestPoints, type QuestPointsOptions } from '../../src/client/index.js';
import {
  QuestPointsProvider,
  useLastRejection,
  usePoints,
  useQuestPoints,
  useQuestPointsStatus,
  type QuestPointsStatus,
} from '../../src/react/index.js';
import { batchOf, fakeRelay, json, jwt, uniqueName, until } from '../client/fake-relay.js';
import type { AwardBody } from '../../src/protocol/index.js';

const made = vi.hoisted(() => [] as QuestPoints[]);
vi.mock('../../src/client/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/client/index.js')>();
  return {
    ...actual,
    createQuestPoints: (options: QuestPointsOptions) => {
      const client = actual.createQuestPoints(options);
      made.push(client);
      return client;
    },
  };
});
const { createQuestPoints } = await import('../../src/client/index.js');

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A relay whose reads answer from what its awards added, per pair. */
function ledgerRelay() {
  const ledger = new Map<string, { eventPoints: number; eventName: string }[]>();
  const add = (questId: string, a: { serviceUserId: string; eventPoints: number; eventName?: string }) => {
    const key = pointsKey(questId, a.serviceUserId);
    ledger.set(key, [{ eventPoints: a.eventPoints, eventName: a.eventName ?? 'event' }, ...(ledger.get(key) ?? [])]);
  };
  return fakeRelay((req) => {
    if (req.path === '/api/batch/points') for (const a of batchOf(req)) add(a.questId, a);
    const single = /^\/api\/group-quests\/([^/]+)\/points$/.exec(req.path);
    if (req.method === 'POST' && single) add(decodeURIComponent(single[1]!), req.body as AwardBody);
    const read = /^\/api\/group-quests\/([^/]+)\/points\/([^/?]+)$/.exec(req.path);
    if (req.method !== 'GET' || !read) return undefined;
    const history = (ledger.get(pointsKey(decodeURIComponent(read[1]!), decodeURIComponent(read[2]!))) ?? []).map((e) => ({
      createdAt: new Date(0).toISOString(),
      eventPoints: e.eventPoints,
      eventName: e.eventName,
      eventDescription: '',
    }));
    return json(200, { success: true, data: { totalPoints: history.reduce((s, e) => s + e.eventPoints, 0), history } });
  });
}

const options = (relay: ReturnType<typeof fakeRelay>): QuestPointsOptions => ({
  relayUrl: '/api',
  getToken: () => jwt('player-1', Date.now() / 1000 + 3600),
  questId: 'quest-1',
  serviceUserId: 'player-1',
  storage: 'memory',
  storageName: uniqueName(),
  flushDelayMs: 1,
  fetch: relay.fetch,
});

const roots: Root[] = [];
afterEach(async () => {
  await act(async () => {
    for (const root of roots.splice(0)) root.unmount();
  });
  await Promise.all(made.splice(0).map((client) => client.close()));
});

async function render(node: ReactNode): Promise<Root> {
  const root = createRoot(document.createElement('div'));
  roots.push(root);
  await act(async () => root.render(createElement(StrictMode, null, node)));
  return root;
}

/** What the probe components rendered, in order: one record per test, from probes(). */
interface Rendered {
  client: QuestPoints[];
  views: PointsView[];
  others: PointsView[];
  status: QuestPointsStatus[];
}
let rendered: Rendered = { client: [], views: [], others: [], status: [] };

function Client() {
  rendered.client.push(useQuestPoints());
  return null;
}
function Total() {
  rendered.views.push(usePoints());
  return null;
}
function Other({ quest, user }: { quest?: string; user?: string }) {
  rendered.others.push(usePoints(quest, user));
  return null;
}
function Status() {
  rendered.status.push(useQuestPointsStatus());
  return null;
}

/** Components that record what they rendered, and how often, into a fresh record. */
function probes() {
  rendered = { client: [], views: [], others: [], status: [] };
  return { seen: rendered, Client, Total, Other, Status };
}

const settle = (fn: () => boolean) => act(() => until(fn));

describe('QuestPointsProvider', () => {
  it('with options in StrictMode: makes one client, keeps it through the dev remount, closes it on unmount', async () => {
    const relay = ledgerRelay();
    const { seen, Client, Total } = probes();
    const root = await render(createElement(QuestPointsProvider, { options: options(relay) }, createElement(Client), createElement(Total)));
    expect(made).toHaveLength(1);
    expect(new Set(seen.client)).toEqual(new Set([made[0]]));
    // StrictMode's effect unmount + remount did not close it: it still takes awards.
    await act(async () => void made[0]!.award({ eventPoints: 2 }));
    await settle(() => seen.views.at(-1)!.totalPoints === 2);
    await act(async () => root.unmount());
    await until(() => {
      try {
        made[0]!.award({ eventPoints: 1 });
        return false;
      } catch (error) {
        return error instanceof QuestPointsError && error.code === 'closed';
      }
    });
  });

  it("with a client: usePoints() is the client's own pair (no watch of its own); the provider never closes it", async () => {
    const client = createQuestPoints(options(ledgerRelay()));
    const { seen, Client, Total } = probes();
    const root = await render(createElement(QuestPointsProvider, { client }, createElement(Client), createElement(Total)));
    expect(new Set(seen.client)).toEqual(new Set([client]));
    await settle(() => seen.views.at(-1)!.confirmedAt !== null);
    expect(seen.views.at(-1)).toMatchObject({ questId: 'quest-1', serviceUserId: 'player-1' });
    expect(Object.keys(client.getSnapshot().points)).toEqual([pointsKey('quest-1', 'player-1')]);
    await act(async () => root.unmount());
    // Still open: an award made after the unmount goes all the way to the relay.
    expect((await client.award({ eventPoints: 1 }).settled).outcome).toBe('sent');
  });

  it('hooks outside a provider throw naming the provider; usePoints() without a pair names what to pass', async () => {
    const { Total } = probes();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(render(createElement(Total))).rejects.toThrow(/usePoints\(\) must be called inside <QuestPointsProvider>/);
    const client = createQuestPoints({ ...options(ledgerRelay()), questId: undefined, serviceUserId: undefined });
    await expect(render(createElement(QuestPointsProvider, { client }, createElement(Total)))).rejects.toThrow(
      /^usePoints\(\): questId .*Pass questId and serviceUserId to usePoints/,
    );
    vi.mocked(console.error).mockRestore();
  });
});

describe('usePoints and useQuestPointsStatus', () => {
  it('follow awards pending -> sent -> confirmed; a change of another pair renders neither', async () => {
    const relay = ledgerRelay();
    const { seen, Total, Status } = probes();
    await render(createElement(QuestPointsProvider, { options: options(relay) }, createElement(Total), createElement(Status)));
    await settle(() => seen.views.at(-1)!.confirmedAt !== null);
    const client = made[0]!;

    const from = seen.views.length;
    await act(async () => void client.award({ eventPoints: 3, eventName: 'coin' }));
    await settle(() => seen.views.at(-1)!.history[0]?.state === 'confirmed' && seen.status.at(-1)!.queueSize === 0);
    const after = seen.views.slice(from);
    // Every render showed the award exactly once, and its state only moved forward.
    expect(after.map((v) => v.totalPoints)).toEqual(after.map(() => 3));
    const states = after.map((v) => v.history[0]!.state).filter((state, i, all) => state !== all[i - 1]);
    expect([
      ['pending', 'sent', 'confirmed'],
      ['pending', 'confirmed'],
    ]).toContainEqual(states);
    expect(seen.views.at(-1)).toMatchObject({
      totalPoints: 3,
      confirmedPoints: 3,
      sentPoints: 0,
      pendingPoints: 0,
      history: [{ eventName: 'coin' }],
    });
    expect(seen.status.at(-1)).toEqual({
      online: true,
      queueSize: 0,
      deadLetterCount: 0,
      authRequired: false,
      deploymentRefused: false,
      storage: 'memory',
    });

    const views = seen.views.length;
    const statuses = seen.status.length;
    // An award of another pair changes the snapshot (its queue size too) but not this view. Another quest of this
    // player's: an award of another player's would wait for that player's session (players.ts).
    await act(async () => void (await client.award({ eventPoints: 1, questId: 'quest-2' }).settled));
    await settle(() => client.getSnapshot().queueSize === 0);
    expect(seen.views.length).toBe(views);
    // The status went 1 and back to 0: rendered for those, twice each under StrictMode.
    expect(seen.status.slice(statuses).map((s) => s.queueSize)).toEqual([1, 1, 0, 0]);
  });

  it('another pair is watched while mounted: its own view, and the watch ends on unmount', async () => {
    const relay = ledgerRelay();
    const { seen, Other } = probes();
    const mine = options(relay);
    const root = await render(createElement(QuestPointsProvider, { options: mine }, createElement(Other, { quest: 'quest-1', user: 'player-9' })));
    const client = made[0]!;
    const key = pointsKey('quest-1', 'player-9');
    expect(client.getSnapshot().points[key]).toMatchObject({ questId: 'quest-1', serviceUserId: 'player-9' });
    // player-9 awards in a session of theirs (player-1's client sends only player-1's awards: players.ts); the
    // watching client reads the pair again.
    const theirs = createQuestPoints({
      ...mine,
      storageName: uniqueName(),
      serviceUserId: 'player-9',
      getToken: () => jwt('player-9', Date.now() / 1000 + 3600),
    });
    await act(async () => void (await theirs.award({ eventPoints: 4 }).settled));
    await theirs.close();
    await act(async () => void (await client.fetchPoints('quest-1', 'player-9')));
    await settle(() => seen.others.at(-1)!.confirmedPoints === 4);
    expect(seen.others.at(-1)).toMatchObject({ questId: 'quest-1', serviceUserId: 'player-9', totalPoints: 4 });
    await act(async () => root.render(createElement(StrictMode, null, createElement(QuestPointsProvider, { options: options(relay) }))));
    expect(made).toHaveLength(2); // the provider's one client through the remount, and player-9's session
    expect(client.getSnapshot().points[key]).toBeUndefined();
  });

  it("a missing id defaults to the client's own: usePoints('quest-2') is this player's other quest", async () => {
    const client = createQuestPoints(options(ledgerRelay()));
    made.push(client);
    client.award({ eventPoints: 6, questId: 'quest-2' });
    const { seen, Other } = probes();
    await render(createElement(QuestPointsProvider, { client }, createElement(Other, { quest: 'quest-2' })));
    // The first render, before the watch: the award from the outbox (not an empty view).
    expect(seen.others[0]).toMatchObject({ questId: 'quest-2', serviceUserId: 'player-1', totalPoints: 6 });
    await settle(() => seen.others.at(-1)!.confirmedPoints === 6);
    expect(seen.others.at(-1)).toMatchObject({ totalPoints: 6, pendingPoints: 0 });
    expect(Object.keys(client.getSnapshot().points)).toContain(pointsKey('quest-2', 'player-1'));
  });

  it('bad ids throw in render, naming the field', async () => {
    const relay = ledgerRelay();
    const { Other } = probes();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(render(createElement(QuestPointsProvider, { options: options(relay) }, createElement(Other, { quest: '' })))).rejects.toThrow(
      /questId/,
    );
    vi.mocked(console.error).mockRestore();
  });

  it('a read that fails again changes nothing and renders nothing', async () => {
    let down = false;
    const ledger = ledgerRelay();
    const relay = fakeRelay((req) => {
      if (down) throw new TypeError('Failed to fetch');
      return ledger.fetch(`http://relay.test${req.path}`, {
        method: req.method,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
      });
    });
    const { seen, Total, Status } = probes();
    await render(createElement(QuestPointsProvider, { options: options(relay) }, createElement(Total), createElement(Status)));
    await settle(() => seen.views.at(-1)!.confirmedAt !== null);
    const client = made[0]!;
    down = true;
    const [views, statuses] = [seen.views.length, seen.status.length];
    await act(async () => void (await client.fetchPoints()));
    // The first failure: the view turned stale and the client offline, rendered twice each under StrictMode.
    expect(seen.views.slice(views).map((v) => v.stale)).toEqual([true, true]);
    expect(seen.status.slice(statuses).map((s) => s.online)).toEqual([false, false]);
    // The second: the SDK built a new view and snapshot with the same content; no render.
    const snapshot = client.getSnapshot();
    await act(async () => void (await client.fetchPoints()));
    expect(client.getSnapshot().points[pointsKey('quest-1', 'player-1')]).not.toBe(snapshot.points[pointsKey('quest-1', 'player-1')]);
    expect(seen.views.length).toBe(views + 2);
    expect(seen.status.length).toBe(statuses + 2);
  });
});

/** What useLastRejection() rendered, in order. */
const letters: (DeadLetter | undefined)[] = [];
function Refusal() {
  letters.push(useLastRejection());
  return null;
}

describe('useLastRejection', () => {
  it("the latest refused award with the rule's code, while the total has dropped it; none before, listener gone after unmount", async () => {
    const ledger = ledgerRelay();
    const relay = fakeRelay((req) => {
      const body = req.body as AwardBody | undefined;
      if (req.method === 'POST' && body?.eventName === 'coin')
        return json(422, { success: false, message: 'budget budgets[0] (1000 points per day, event "coin") is spent', code: 'budget' });
      if (req.method === 'POST' && body?.eventName === 'first-win')
        return json(422, { success: false, message: 'once events.first-win: already counted', code: 'once' });
      return ledger.fetch(`http://relay.test${req.path}`, { method: req.method, body: body === undefined ? undefined : JSON.stringify(body) });
    });
    letters.length = 0;
    const { seen, Total } = probes();
    const root = await render(createElement(QuestPointsProvider, { options: options(relay) }, createElement(Total), createElement(Refusal)));
    expect(letters.at(-1)).toBeUndefined();
    const client = made[0]!;
    await act(async () => void (await client.award({ eventPoints: 10, eventName: 'coin' }).settled));
    await settle(() => letters.at(-1)?.code === 'budget');
    expect(letters.at(-1)).toMatchObject({ code: 'budget', status: 422, eventPoints: 10 });
    expect(seen.views.at(-1)).toMatchObject({ totalPoints: 0, pendingPoints: 0 });
    await act(async () => void (await client.award({ eventPoints: 50, eventName: 'first-win', onceKey: 'level-1' }).settled));
    await settle(() => letters.at(-1)?.code === 'once');
    expect(letters.at(-1)).toMatchObject({ code: 'once', onceKey: 'level-1' });
    const off = vi.spyOn(client, 'off');
    await act(async () => root.unmount());
    expect(off.mock.calls.map(([event]) => event)).toContain('award:rejected');
  });
});
