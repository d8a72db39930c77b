import { createContext, useContext } from 'react';
import type { QuestPoints } from '../client/index.js';

export const QuestPointsContext = createContext<QuestPoints | null>(null);

export function useClient(hook: string): QuestPoints {
  const client = useContext(QuestPointsContext);
  if (!client) throw new Error(`${hook} must be called inside <QuestPointsProvider>`);
  return client;
}

/** The client of the nearest QuestPointsProvider: award(), flush(), deadLetters() and the rest of the SDK. */
export function useQuestPoints(): QuestPoints {
  return useClient('useQuestPoints()');
}
