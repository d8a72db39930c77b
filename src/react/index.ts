export { QuestPointsProvider, type QuestPointsProviderProps } from './provider.js';
export { useQuestPoints } from './context.js';
export { usePoints, useQuestPointsStatus } from './hooks.js';
export type { QuestPointsStatus } from './stable.js';
