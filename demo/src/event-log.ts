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
  'deployment:refused': (e) =>
    `the deployment refused the queue (${e.status}${e.code ? ` ${e.code}` : ''}): held, next try in ${Math.round(e.delayMs)} ms`,
  'environment:changed': ({ environment: env }) =>
    `awards kept in ${env.storage}${env.partitioned ? ' (partitioned)' : ''}, closed-tab delivery ${env.closedTabDelivery.available ? 'on' : `off (${env.closedTabDelivery.reason})`}`,
  'storage:degraded': (e) => `storage degraded (${e.reason}): awards kept in memory`,
  'sync:failed': (e) => `service worker gave up a sync (${e.reason}): ${e.message}`,
  error: (e) => `error during ${e.during}: ${e.error instanceof Error ? e.error.message : String(e.error)}`,
};

/** What makes two lines "the same event again": the event and its words without the numbers (attempt 7, 3 in queue). */
const repeatKey = (name: string, text: string) => `${name}|${text.replace(/[\d.,]+/g, '#')}`;

/**
 * Keep the newest `max` SDK events in an <ol>. An event that repeats the newest line (the same event, the same words
 * but for its numbers: "retrying (network), attempt 7") updates that line and counts it (×8) instead of adding one:
 * an hour offline is one line, not a screenful. Returns the stop function.
 */
export function logEvents(client: QuestPoints, list: HTMLOListElement, max = 12): () => void {
  const stops = (Object.keys(describe) as (keyof QuestPointsEvents)[]).map((name) => {
    const listener = (payload: never) => {
      const text = (describe[name] as (e: never) => string)(payload);
      const key = repeatKey(name, text);
      const newest = list.firstElementChild as HTMLLIElement | null;
      const repeated = newest?.dataset.key === key;
      const item = repeated && newest ? newest : document.createElement('li');
      const time = document.createElement('time');
      const now = new Date();
      time.dateTime = now.toISOString();
      time.textContent = now.toLocaleTimeString('en-GB');
      const count = repeated ? Number(item.dataset.count ?? '1') + 1 : 1;
      item.replaceChildren(time, text);
      if (count > 1) {
        const times = document.createElement('span');
        times.className = 'repeat';
        times.textContent = ` ×${count}`;
        item.append(times);
      }
      Object.assign(item.dataset, { event: name, key, count: String(count) });
      if (!repeated) list.prepend(item);
      while (list.children.length > max) list.lastElementChild?.remove();
    };
    client.on(name, listener as never);
    return () => client.off(name, listener as never);
  });
  return () => {
    for (const stop of stops) stop();
  };
}
