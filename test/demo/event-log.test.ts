// @vitest-environment happy-dom
// The demo's event log: a repeated event is one line with its count, not a screenful of "retrying ... attempt N".
import { EventEmitter } from 'eventemitter3';
import { expect, it } from 'vitest';
import type { QuestPoints } from '../../src/client/index.js';
import { logEvents } from '../../demo/src/event-log.js';

it('collapses repeats of the newest line (same event, same words but the numbers) and keeps distinct events apart', () => {
  const client = new EventEmitter();
  const list = document.createElement('ol');
  logEvents(client as unknown as QuestPoints, list, 5);
  const retry = (attempt: number) => client.emit('award:retrying', { reason: 'network', attempt, delayMs: 250 * attempt });
  for (let attempt = 1; attempt <= 7; attempt++) retry(attempt);
  expect([...list.children].map((li) => li.textContent?.replace(/^[\d:]+/, ''))).toEqual(['retrying (network), attempt 7, next in 1750 ms ×7']);

  client.emit('connection:changed', { online: true });
  retry(1);
  client.emit('award:retrying', { reason: 'http', status: 503, attempt: 2, delayMs: 500 });
  expect([...list.children].map((li) => (li as HTMLElement).dataset.count)).toEqual(['1', '1', '1', '7']);
});
