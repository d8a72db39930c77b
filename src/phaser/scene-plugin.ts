import type { AwardHandle, AwardInput, PointsView, QuestPoints, QuestPointsEvents, Snapshot } from '../client/index.js';
import { OwnListeners } from '../engines/listeners.js';
import type { PluginManagerLike } from './plugin.js';
import { clientOf } from './registry.js';
import type { SceneLike } from './scene-binding.js';

/**
 * A scene plugin: each scene gets `this.questPoints` with the SDK's typed events (`on`, `once`, `off`), and every
 * listener a scene added is removed when the scene shuts down or is destroyed, so a restarted scene never hears an
 * event twice. The client is the one of the game's global QuestPointsPlugin (see questPointsPlugins()).
 */
export class QuestPointsScenePlugin {
  /** The scene this plugin serves; null once destroyed. */
  scene: SceneLike | null;
  /** Phaser's PluginManager, through which the game's client is found; null once destroyed. */
  pluginManager: PluginManagerLike | null;
  private readonly listeners = new OwnListeners();

  /** Called by Phaser for each scene; listeners are added later, through on() and once(). */
  constructor(scene: SceneLike, pluginManager: PluginManagerLike) {
    this.scene = scene;
    this.pluginManager = pluginManager;
  }

  /** Called by Phaser when the scene boots. Phaser.Scenes.Events.SHUTDOWN / DESTROY. */
  boot(): void {
    this.scene?.events.on('shutdown', () => this.removeAll());
    this.scene?.events.once('destroy', () => this.destroy());
  }

  /** The SDK client of the game's QuestPointsPlugin. */
  get client(): QuestPoints {
    return clientOf(this.pluginManager?.game);
  }

  /** The live view now (total, pending, history); ids default to the client's own quest and player. */
  viewPoints(questId?: string, serviceUserId?: string): PointsView {
    return this.client.viewPoints(questId, serviceUserId);
  }

  /** @deprecated Renamed `viewPoints`, as on the client; removed in 0.3. */
  view(questId?: string, serviceUserId?: string): PointsView {
    return this.viewPoints(questId, serviceUserId);
  }

  /** The client's award(): queues the award durably and returns its handle. */
  award(input: AwardInput): AwardHandle {
    return this.client.award(input);
  }

  /** The client's getSnapshot(): connection, queue and storage state now. */
  getSnapshot(): Snapshot {
    return this.client.getSnapshot();
  }

  /** Listen to an SDK event until this scene shuts down (or off() removes it). Returns this, for chaining. */
  on<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): this {
    this.listeners.add(this.client, event, fn);
    return this;
  }

  /** Listen to the next occurrence of an SDK event, within this scene's life. Returns this, for chaining. */
  once<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): this {
    this.listeners.add(this.client, event, fn, true);
    return this;
  }

  /** Remove this scene's listener `fn` of `event`, or without `fn` all of this scene's listeners of `event`. */
  off<E extends keyof QuestPointsEvents>(event: E, fn?: QuestPointsEvents[E]): this {
    this.listeners.remove(this.client, event, fn);
    // A listener given by name is removed even if this scene did not add it (as before).
    if (fn !== undefined) this.client.off(event, fn);
    return this;
  }

  /** Removes every listener this scene added (done for you on shutdown). */
  removeAll(): void {
    this.listeners.clear(this.pluginManager ? clientOf(this.pluginManager.game, false) : undefined);
  }

  /** Called by Phaser when the scene is destroyed: removes the scene's listeners and lets go of the scene. */
  destroy(): void {
    this.removeAll();
    this.scene = null;
    this.pluginManager = null;
  }
}
