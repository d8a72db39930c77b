import type { PointsView, QuestPoints, Snapshot } from '../../src/client/index.js';
import { logEvents } from './event-log.js';
import { byId, formatPoints } from './session.js';

/**
 * The HUD both games share: live total (confirmed + pending, the pending part marked), pending awards,
 * online/offline, and the SDK's recent events. Elements by id: hud-total, hud-pending-points, hud-queue,
 * hud-connection, hud-events.
 */
export function mountHud(client: QuestPoints, questId: string, serviceUserId: string): () => void {
  const total = byId('hud-total');
  const pendingPoints = byId('hud-pending-points');
  const queue = byId('hud-queue');
  const connection = byId('hud-connection');

  const showView = (view: PointsView) => {
    total.textContent = formatPoints(view.totalPoints);
    total.dataset.value = String(view.totalPoints);
    pendingPoints.textContent = view.pendingPoints ? `${formatPoints(view.pendingPoints)} pending` : 'all confirmed';
    pendingPoints.className = view.pendingPoints ? 'pending' : '';
  };
  const showSnapshot = (snapshot: Snapshot) => {
    queue.textContent = String(snapshot.queueSize);
    queue.dataset.value = String(snapshot.queueSize);
    connection.textContent = snapshot.online ? 'online' : 'offline';
    connection.className = `badge ${snapshot.online ? 'online' : 'offline'}`;
    connection.dataset.online = String(snapshot.online);
  };
  showSnapshot(client.getSnapshot());
  const stops = [
    client.watchPoints(questId, serviceUserId, showView),
    client.subscribe(showSnapshot),
    logEvents(client, byId<HTMLOListElement>('hud-events')),
  ];
  return () => stops.forEach((stop) => stop());
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
  <label class="switch"><input type="checkbox" role="switch" id="offline-switch"> Offline switch (fail every request)</label>
  <h2 style="margin-top:1rem">Recent events</h2>
  <ol class="events" id="hud-events" aria-label="Recent SDK events" tabindex="0"></ol>`;
