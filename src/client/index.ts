export { createQuestPoints } from './client.js';
export { QuestPointsError, type QuestPointsErrorCode } from './errors.js';
export { pointsKey } from './pair.js';
export type * from './client-types.js';
export type * from './options.js';
export type * from './types.js';
import type { EventEmitter } from 'eventemitter3';
import { QuestPointsEmitter as Emitter } from './events.js';
import type { QuestPointsEvents } from './client-types.js';

// Typed as eventemitter3's emitter over the event map, so the reference names no internal class.
/** @deprecated The client's internal emitter class: listen with `qp.on`/`off`/`once`. Removed in 0.3. */
export const QuestPointsEmitter: {
  /** A new, empty emitter (the client makes its own). */
  new (): EventEmitter<QuestPointsEvents>;
} = Emitter;
/** @deprecated See the value of the same name. */
export type QuestPointsEmitter = EventEmitter<QuestPointsEvents>;
