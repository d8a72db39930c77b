export { createQuestPoints } from './client.js';
export { QuestPointsError, type QuestPointsErrorCode } from './errors.js';
export { pointsKey } from './live.js';
export type * from './types.js';
import { QuestPointsEmitter as Emitter } from './events.js';

/** @deprecated The client's internal emitter class: listen with `qp.on`/`off`/`once`. Removed in 0.3. */
export const QuestPointsEmitter = Emitter;
/** @deprecated See the value of the same name. */
export type QuestPointsEmitter = Emitter;
