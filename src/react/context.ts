import { createContext, useContext } from 'react';
import type { QuestPoints } from '../client/index.js';

/** What the provider gives its tree: the client and the pair usePoints() reads when called without arguments. */
export interface QuestPointsContextValue {
  client: QuestPoints;
  questId?: string;
  serviceUserId?: string;
  /**
   * True when that pair is the client's own (the provider made the client with it): the SDK tracks it from start-up,
   * so usePoints() reads it from the snapshot without a watch of its own.
   */
  own: boolean;
}

export const QuestPointsContext = createContext<QuestPointsContextValue | null>(null);

export function useQuestPointsContext(hook: string): QuestPointsContextValue {
  const value = useContext(QuestPointsContext);
  if (!value) throw new Error(`${hook} must be called inside <QuestPointsProvider>`);
  return value;
}

/** The client of the nearest QuestPointsProvider: award(), flush(), deadLetters() and the rest of the SDK. */
export function useQuestPoints(): QuestPoints {
  return useQuestPointsContext('useQuestPoints()').client;
}
