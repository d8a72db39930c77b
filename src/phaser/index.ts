import { QuestPointsPlugin, type QuestPointsPluginData } from './plugin.js';
import { QuestPointsScenePlugin } from './scene-plugin.js';

export { QuestPointsPlugin, type QuestPointsPluginData, type PluginManagerLike } from './plugin.js';
export { QuestPointsScenePlugin } from './scene-plugin.js';
export { bindScene, FORWARDED_EVENTS, type SceneLike } from './scene-binding.js';

/**
 * The `plugins` entry of a Phaser game config: the global plugin that owns the client (key 'QuestPoints') and the
 * scene plugin that gives every scene `this.questPoints` (typed events, removed on scene shutdown).
 */
export function questPointsPlugins(data: QuestPointsPluginData, { key = 'QuestPoints', mapping = 'questPoints' } = {}) {
  return {
    global: [{ key, plugin: QuestPointsPlugin, start: true, data }],
    scene: [{ key: `${key}Scene`, plugin: QuestPointsScenePlugin, mapping }],
  };
}
