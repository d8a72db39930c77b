import type { QuestPoints } from '../client/index.js';

/** The client of each game's QuestPointsPlugin, so every scene plugin of that game finds it whatever its key. */
const clients = new WeakMap<object, QuestPoints>();

export function registerClient(game: unknown, client: QuestPoints | null): void {
  if (!game || typeof game !== 'object') return;
  if (client) clients.set(game, client);
  else clients.delete(game);
}

export function clientOf(game: unknown, required: true): QuestPoints;
export function clientOf(game: unknown, required: false): QuestPoints | undefined;
export function clientOf(game: unknown): QuestPoints;
export function clientOf(game: unknown, required = true): QuestPoints | undefined {
  const client = game && typeof game === 'object' ? clients.get(game) : undefined;
  if (!client && required) throw new Error('QuestPoints: no QuestPointsPlugin in this game (add questPointsPlugins(...) to the game config)');
  return client;
}
