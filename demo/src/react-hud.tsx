import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QuestPointsProvider, usePoints, useQuestPoints, useQuestPointsStatus } from '../../src/react/index.js';
import { byId, createOfflineSwitch, devToken, formatPoints, playerId, QUEST_ID, type OfflineSwitch } from './session.js';

// The React face: the provider makes the client (and closes it on unmount), usePoints() gives the live view of this
// player's points, useQuestPointsStatus() the connection and queue. StrictMode, as a React app would ship in dev.

const player = playerId();
const offline = createOfflineSwitch();

function Total() {
  const view = usePoints();
  return (
    <section className="panel" aria-labelledby="total-title">
      <h2 id="total-title">
        Quest points{' '}
        <small>
          (player <code>{player}</code>)
        </small>
      </h2>
      <p className="big" aria-live="polite" aria-atomic="true">
        <span className="visually-hidden">Total points: </span>
        <span id="react-total" data-value={view.totalPoints}>
          {formatPoints(view.totalPoints)}
        </span>
      </p>
      <p id="react-parts" className={view.pendingPoints || view.sentPoints ? 'pending' : ''}>
        {formatPoints(view.confirmedPoints)} confirmed · {formatPoints(view.sentPoints)} sent · {formatPoints(view.pendingPoints)} pending
        {view.stale ? ' · last known (not read yet)' : ''}
      </p>
      <Awards />
      <h2 style={{ marginTop: '1rem' }}>Last 8 awards</h2>
      <ol className="events" id="react-history" aria-label="Last 8 awards, newest first">
        {view.history.slice(0, 8).map((entry, i) => (
          <li key={entry.idempotencyKey ?? `${entry.createdAt}#${i}`} data-state={entry.state}>
            <span className={`badge ${entry.state === 'confirmed' ? 'online' : 'pending'}`}>{entry.state}</span> {entry.eventName} +
            {formatPoints(entry.eventPoints)}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Awards() {
  const client = useQuestPoints();
  return (
    <div className="row">
      <button type="button" onClick={() => client.award({ eventPoints: 1, eventName: 'coin' })}>
        Award a coin (+1)
      </button>
      <button type="button" onClick={() => client.award({ eventPoints: 5, eventName: 'gem' })}>
        Award a gem (+5)
      </button>
    </div>
  );
}

function Status({ offlineSwitch }: { offlineSwitch: OfflineSwitch }) {
  const status = useQuestPointsStatus();
  return (
    <aside className="panel" aria-label="SDK status">
      <h2>Status</h2>
      <dl className="stats">
        <dt>Connection</dt>
        <dd>
          <span id="react-connection" className={`badge ${status.online ? 'online' : 'offline'}`} role="status" data-online={status.online}>
            {status.online ? 'online' : 'offline'}
          </span>
        </dd>
        <dt>Pending awards</dt>
        <dd id="react-queue" data-value={status.queueSize}>
          {status.queueSize}
        </dd>
        <dt>Dead letters</dt>
        <dd>{status.deadLetterCount}</dd>
        <dt>Storage</dt>
        <dd>{status.storage}</dd>
        <dt>Sign-in</dt>
        <dd>{status.authRequired ? 'token refused: sending paused' : 'ok'}</dd>
      </dl>
      <label className="switch">
        {/* biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox exposes its checked state as aria-checked (HTML-AAM); an aria-checked here could only disagree with it */}
        <input type="checkbox" role="switch" defaultChecked={offlineSwitch.offline} onChange={(e) => offlineSwitch.set(e.currentTarget.checked)} />{' '}
        Offline switch (fail every request)
      </label>
    </aside>
  );
}

createRoot(byId('root')).render(
  <StrictMode>
    <QuestPointsProvider
      options={{
        relayUrl: '/api',
        getToken: devToken({ sub: player }),
        questId: QUEST_ID,
        serviceUserId: player,
        storageName: 'qp-demo-react',
        fetch: offline.fetch,
        backoff: { baseMs: 250, maxMs: 4000 },
      }}
    >
      <Total />
      <Status offlineSwitch={offline} />
    </QuestPointsProvider>
  </StrictMode>,
);
