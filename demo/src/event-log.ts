import type { QuestPoints, QuestPointsEvents } from '../../src/client/index.js';
import { formatPoints } from './session.js';

type Payload<E extends keyof QuestPointsEvents> = Parameters<QuestPointsEvents[E]>[0];

/** One line per SDK event, in words a designer reads. */
const describe: { [E in keyof QuestPointsEvents]: (e: Payload<E>) => string } = {
  'award:queued': (e) => `queued ${formatPoints(e.award.eventPoints)} pts (${e.award.eventName ?? 'DefaultPointsEvent'}), ${e.queueSize} in queue`,
  'award:sent': (e) => `sent ${formatPoints(e.award.eventPoints)} pts (${e.award.eventName ?? 'DefaultPointsEvent'})`,
  'award:retrying': (e) => `retrying (${e.reason}${e.status ? ` ${e.status}` : ''}), attempt ${e.attempt}, next in ${Math.round(e.delayMs)} ms`,
  'award:rejected': (e) => `rejected ${e.deadLetter.status}: ${e.deadLetter.message}`,
  'points:changed': (e) => `points of ${e.view.serviceUserId}: ${formatPoints(e.view.totalPoints)} (${formatPoints(e.view.pendingPoints)} pending)`,
  'queue:changed': (e) => `queue: ${e.queueSize}`,
  'queue:drained': () => 'queue drained',
  'connection:changed': (e) => (e.online ? 'back online' : 'offline'),
  'auth:required': () => 'token refused: sending paused until a fresh token',
  'environment:changed': ({ environment: env }) =>
    `awards kept in ${env.storage}${env.partitioned ? ' (partitioned)' : ''}, closed-tab delivery ${env.closedTabDelivery.available ? 'on' : `off (${env.closedTabDelivery.reason})`}`,
  'storage:degraded': (e) => `storage degraded (${e.reason}): awards kept in memory`,
  'sync:failed': (e) => `service worker gave up a sync (${e.reason}): ${e.message}`,
  error: (e) => `error during ${e.during}: ${e.error instanceof Error ? e.error.message : String(e.error)}`,
};

/** Keep the newest `max` SDK events in an <ol>. Returns the stop function. */
export function logEvents(client: QuestPoints, list: HTMLOListElement, max = 12): () => void {
  const stops = (Object.keys(describe) as (keyof QuestPointsEvents)[]).map((name) => {
    const listener = (payload: never) => {
      const item = document.createElement('li');
      const time = document.createElement('time');
      const now = new Date();
      time.dateTime = now.toISOString();
      time.textContent = now.toLocaleTimeString('en-GB');
      item.append(time, (describe[name] as (e: never) => string)(payload));
      item.dataset.event = name;
      list.prepend(item);
      while (list.children.length > max) list.lastElementChild?.remove();
    };
    client.on(name, listener as never);
    return () => client.off(name, listener as never);
  });
  return () => {
    for (const stop of stops) stop();
  };
}
