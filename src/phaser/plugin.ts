import {
  createQuestPoints,
  type AwardHandle,
  type AwardInput,
  type QuestPoints,
  type QuestPointsEvents,
  type QuestPointsOptions,
  type Snapshot,
} from '../client/index.js';
import { registerClient } from './registry.js';
import { bindScene, type SceneLike } from './scene-binding.js';

/** The `data` of the plugin's config entry: a client the game made, or the options to make one. */
export type QuestPointsPluginData = { client: QuestPoints } | QuestPointsOptions;

/** What Phaser's PluginManager hands a global plugin (Phaser.Plugins.PluginManager). */
export interface PluginManagerLike {
  game: unknown;
}

/**
 * A global Phaser plugin (Phaser 3.80+ and 4). It fulfils Phaser.Plugins.BasePlugin's contract
 * (constructor(pluginManager), init(data), start(), stop(), destroy()) without importing phaser, so this entry
 * never pulls phaser into a bundle and works with whichever Phaser the game loads (npm or a script tag).
 *
 *   plugins: { global: [{ key: 'QuestPoints', plugin: QuestPointsPlugin, start: true, mapping: 'questPoints',
 *                         data: { relayUrl: '/api', getToken, questId, serviceUserId } }] }
 *
 * or, simpler, `plugins: questPointsPlugins(data)`, which also installs QuestPointsScenePlugin as `this.questPoints`
 * in every scene: `this.questPoints.on('points:changed', ({ view }) => ...)`, typed and removed on scene shutdown.
 */
export class QuestPointsPlugin {
  /** Phaser's PluginManager, kept as BasePlugin keeps it; null once destroyed. */
  pluginManager: PluginManagerLike | null;
  /** The Phaser.Game this plugin belongs to; null once destroyed. */
  game: unknown;
  private quest: QuestPoints | null = null;
  /** True when the plugin created the client, so it closes it on destroy. */
  private ownsClient = false;
  private readonly bindings = new Map<SceneLike, () => void>();

  /** Called by Phaser's PluginManager; the client is made (or taken) later, in init(). */
  constructor(pluginManager: PluginManagerLike) {
    this.pluginManager = pluginManager;
    this.game = pluginManager.game;
  }

  /** Called once by the PluginManager with the config entry's `data`. */
  init(data?: QuestPointsPluginData): void {
    if (!data) throw new TypeError('QuestPointsPlugin: data is required: { client } or the options of createQuestPoints');
    if ('client' in data && data.client) {
      this.quest = data.client;
    } else {
      this.quest = createQuestPoints(data as QuestPointsOptions);
      this.ownsClient = true;
    }
    registerClient(this.game, this.quest);
  }

  /** Part of Phaser's plugin contract; nothing to do: the client started flushing when init() made or took it. */
  start(): void {}

  /** A stopped plugin stops forwarding; the client keeps its queue and keeps flushing. */
  stop(): void {
    for (const unbind of [...this.bindings.values()]) unbind();
  }

  /**
   * Called by Phaser when the game is destroyed: unbinds every scene and closes the client if the plugin made it
   * (a client the game passed in is left open). Queued awards stay in IndexedDB for the next session.
   */
  destroy(): void {
    this.stop();
    if (this.ownsClient) void this.quest?.close();
    registerClient(this.game, null);
    this.quest = null;
    this.pluginManager = null;
    this.game = null;
  }

  /** The SDK client. */
  get client(): QuestPoints {
    if (!this.quest) throw new Error('QuestPointsPlugin: not initialised (or destroyed)');
    return this.quest;
  }

  /** The client's award(): queues the award durably and returns its handle. Throws if the plugin is not initialised. */
  award(input: AwardInput): AwardHandle {
    return this.client.award(input);
  }

  /** The client's getSnapshot(): connection, queue and storage state now. Throws if the plugin is not initialised. */
  getSnapshot(): Snapshot {
    return this.client.getSnapshot();
  }

  /**
   * Re-emit the SDK's events on `scene.events` (same names, one payload) until the scene shuts down or is
   * destroyed; binding a scene again replaces its earlier binding. Returns the unbind function.
   */
  bindScene(scene: SceneLike, events?: readonly (keyof QuestPointsEvents)[]): () => void {
    this.bindings.get(scene)?.();
    const unbind: () => void = bindScene(this.client, scene, {
      ...(events ? { events } : {}),
      onUnbind: () => {
        if (this.bindings.get(scene) === unbind) this.bindings.delete(scene);
      },
    });
    this.bindings.set(scene, unbind);
    return unbind;
  }

  /** Scenes currently bound (for tests and debugging). */
  get boundScenes(): number {
    return this.bindings.size;
  }
}
