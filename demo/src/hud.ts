import type { HistoryEntry, PointsView, QuestPoints, Snapshot } from '../../src/client/index.js';
import { logEvents } from './event-log.js';
import { byId, formatPoints } from './session.js';

/** How many history entries the HUDs show. */
export const HUD_HISTORY = 8;

/** One history line: "+5 coin_caught", and its state (pending, sent, confirmed). */
export const historyLine = (entry: HistoryEntry) => `${entry.eventPoints >= 0 ? '+' : ''}${formatPoints(entry.eventPoints)} ${entry.eventName}`;

/**
 * The HUD both games share, live from the client's own pair with no read in game code: total (confirmed + sent +
 * pending, the not-yet-confirmed part marked), the last 8 history entries with their state, pending awards,
 * online/offline, and the SDK's recent events. Elements by id: hud-total, hud-pending-points, hud-history,
 * hud-queue, hud-connection, hud-events.
 */
export function mountHud(client: QuestPoints): () => void {
  const total = byId('hud-total');
  const pendingPoints = byId('hud-pending-points');
  const history = byId<HTMLOListElement>('hud-history');
  const queue = byId('hud-queue');
  const connection = byId('hud-connection');
  const own = client.viewPoints();

  const showView = (view: PointsView) => {
    if (view.questId !== own.questId || view.serviceUserId !== own.serviceUserId) return;
    total.textContent = formatPoints(view.totalPoints);
    total.dataset.value = String(view.totalPoints);
    const unconfirmed = view.pendingPoints + view.sentPoints;
    pendingPoints.textContent = unconfirmed ? `${formatPoints(unconfirmed)} not yet confirmed` : view.stale ? 'last known total' : 'all confirmed';
    pendingPoints.className = unconfirmed ? 'pending' : '';
    history.replaceChildren(
      ...view.history.slice(0, HUD_HISTORY).map((entry) => {
        const item = document.createElement('li');
        item.dataset.state = entry.state;
        item.textContent = `${historyLine(entry)} `;
        const state = document.createElement('span');
        state.className = `badge ${entry.state}`;
        state.textContent = entry.state;
        item.append(state);
        return item;
      }),
    );
  };
  const showSnapshot = (snapshot: Snapshot) => {
    queue.textContent = String(snapshot.queueSize);
    queue.dataset.value = String(snapshot.queueSize);
    connection.textContent = snapshot.online ? 'online' : 'offline';
    connection.className = `badge ${snapshot.online ? 'online' : 'offline'}`;
    connection.dataset.online = String(snapshot.online);
  };
  showSnapshot(client.getSnapshot());
  showView(own);
  const onPoints = ({ view }: { view: PointsView }) => showView(view);
  client.on('points:changed', onPoints);
  const stops = [
    () => void client.off('points:changed', onPoints),
    client.subscribe(showSnapshot),
    logEvents(client, byId<HTMLOListElement>('hud-events')),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** The HUD's markup, shared by the canvas and the Phaser page. */
export const HUD_HTML = `
  <h2>Quest points</h2>
  <p class="big" aria-live="polite" aria-atomic="true"><span class="visually-hidden">Total points: </span><span id="hud-total" data-value="0">0</span></p>
  <p id="hud-pending-points" aria-live="polite">all confirmed</p>
  <dl class="stats">
    <dt>Pending awards</dt><dd id="hud-queue" data-value="0">0</dd>
    <dt>Connection</dt><dd><span id="hud-connection" class="badge online" role="status">online</span></dd>
    <dt>Caught</dt><dd id="hud-caught" data-value="0">0</dd>
  </dl>
  <label class="switch"><input type="checkbox" role="switch" id="offline-switch"> Offline switch (every request fails, as on a train)</label>
  <h2 style="margin-top:1rem">History</h2>
  <ol class="events history" id="hud-history" aria-label="Last 8 points, newest first"></ol>
  <h2 style="margin-top:1rem">Recent events</h2>
  <ol class="events" id="hud-events" aria-label="Recent SDK events" tabindex="0"></ol>`;
