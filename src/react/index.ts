export { QuestPointsProvider, type QuestPointsProviderProps } from './provider.js';
export { useQuestPoints } from './context.js';
export { useLastRejection, usePoints, useQuestPointsStatus } from './hooks.js';
export type { QuestPointsStatus } from './stable.js';
