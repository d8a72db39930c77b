export { createQuestPoints } from './client.js';
export { QuestPointsError, type QuestPointsErrorCode } from './errors.js';
export { pointsKey } from './outbox.js';
export type * from './types.js';
