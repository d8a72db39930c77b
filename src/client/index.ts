export { createQuestPoints } from './client.js';
export { QuestPointsError, type QuestPointsErrorCode } from './errors.js';
export { pointsKey } from './live.js';
export { QuestPointsEmitter } from './events.js';
export type * from './types.js';
