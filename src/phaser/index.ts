export { QuestPointsPlugin, type QuestPointsPluginData, type PluginManagerLike } from './plugin.js';
export { bindScene, FORWARDED_EVENTS, type SceneLike } from './scene-binding.js';
