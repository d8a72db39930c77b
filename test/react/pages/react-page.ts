// The React test page: React 19 in StrictMode, the provider making the client from options, and components that
// count their renders. Query: sub (serviceUserId), quest, storage (storageName), poll (pollIntervalMs).
import { createElement as h, StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import type { QuestPoints } from '../../../src/client/index.js';
import { QuestPointsProvider, usePoints, useQuestPoints, useQuestPointsStatus } from '../../../src/react/index.js';
import { tokenFrom } from '../../../src/sw/token.js';

const params = new URLSearchParams(location.search);
const sub = params.get('sub') ?? 'player';
const questId = params.get('quest') ?? 'browser-quest';
const instance = crypto.randomUUID().slice(0, 8);

/** Renders per component; StrictMode renders twice per update in development. */
const renders = { hud: 0, other: 0, status: 0 };
const clients = new Set<QuestPoints>();
let client: QuestPoints | undefined;
/** Requests the SDK made (through the `fetch` option), answered or not. */
let requests = 0;

function Hud() {
  renders.hud++;
  const view = usePoints();
  return h(
    'section',
    { id: 'hud' },
    h(
      'output',
      { id: 'total', 'data-value': view.totalPoints, 'data-stale': String(view.stale), 'data-read': String(view.confirmedAt !== null) },
      view.totalPoints,
    ),
    h(
      'ol',
      { id: 'history' },
      view.history
        .slice(0, 8)
        .map((entry, i) =>
          h(
            'li',
            { key: entry.idempotencyKey ?? `${entry.createdAt}#${i}`, 'data-state': entry.state, 'data-points': entry.eventPoints },
            `${entry.eventName} +${entry.eventPoints} ${entry.state}`,
          ),
        ),
    ),
  );
}

function Other() {
  renders.other++;
  const view = usePoints(`${questId}-other`, sub);
  return h('output', { id: 'other', 'data-value': view.totalPoints, 'data-read': String(view.confirmedAt !== null) }, view.totalPoints);
}

function Status() {
  renders.status++;
  const status = useQuestPointsStatus();
  return h('p', {
    id: 'status',
    'data-online': String(status.online),
    'data-queue': status.queueSize,
    'data-dead': status.deadLetterCount,
    'data-storage': status.storage,
    'data-auth': String(status.authRequired),
  });
}

function Capture() {
  const current = useQuestPoints();
  useEffect(() => {
    clients.add(current);
    client = current;
  }, [current]);
  return null;
}

const root = createRoot(document.getElementById('root')!);
root.render(
  h(
    StrictMode,
    null,
    h(
      QuestPointsProvider,
      {
        options: {
          relayUrl: '/api',
          getToken: tokenFrom(`/token?sub=${encodeURIComponent(sub)}&tab=react&instance=${instance}`),
          questId,
          serviceUserId: sub,
          storageName: params.get('storage') ?? `react-${instance}`,
          pollIntervalMs: Number(params.get('poll') ?? 60_000),
          backoff: { baseMs: 100, maxMs: 1000 },
          fetch: (input, init) => {
            requests++;
            return fetch(input, init);
          },
        },
      },
      h(Capture),
      h(Hud),
      h(Other),
      h(Status),
    ),
  ),
);

const reactPage = {
  renders,
  clients: () => clients.size,
  requests: () => requests,
  /** Awards to this page's player in its quest, or in another quest; returns the idempotency key. */
  award(points: number, quest?: string) {
    return client!.award({ eventPoints: points, eventName: 'coin', ...(quest ? { questId: quest } : {}) }).idempotencyKey;
  },
  unmount: () => root.unmount(),
  /** After unmount: does the client the provider made still take awards? */
  takesAwards() {
    try {
      client!.award({ eventPoints: 1 });
      return true;
    } catch (error) {
      return (error as { code?: string }).code === 'closed' ? false : String(error);
    }
  },
};
export type ReactPage = typeof reactPage;
(window as unknown as { reactPage: ReactPage }).reactPage = reactPage;
