import type { AwardHandle, AwardInput, PointsView, QuestPoints, QuestPointsEvents, Snapshot } from '../client/index.js';
import type { PluginManagerLike } from './plugin.js';
import { clientOf } from './registry.js';
import type { SceneLike } from './scene-binding.js';

type Listener = [event: keyof QuestPointsEvents, fn: (payload: never) => void];

/**
 * A scene plugin: each scene gets `this.questPoints` with the SDK's typed events (`on`, `once`, `off`), and every
 * listener a scene added is removed when the scene shuts down or is destroyed, so a restarted scene never hears an
 * event twice. The client is the one of the game's global QuestPointsPlugin (see questPointsPlugins()).
 */
export class QuestPointsScenePlugin {
  scene: SceneLike | null;
  pluginManager: PluginManagerLike | null;
  private readonly listeners: Listener[] = [];

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

  award(input: AwardInput): AwardHandle {
    return this.client.award(input);
  }

  getSnapshot(): Snapshot {
    return this.client.getSnapshot();
  }

  on<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): this {
    this.client.on(event, fn);
    this.listeners.push([event, fn as Listener[1]]);
    return this;
  }

  once<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): this {
    this.client.once(event, fn);
    this.listeners.push([event, fn as Listener[1]]);
    return this;
  }

  off<E extends keyof QuestPointsEvents>(event: E, fn?: QuestPointsEvents[E]): this {
    this.client.off(event, fn);
    for (let i = this.listeners.length - 1; i >= 0; i--) {
      const [name, listener] = this.listeners[i]!;
      if (name === event && (!fn || listener === fn)) this.listeners.splice(i, 1);
    }
    return this;
  }

  /** Removes every listener this scene added (done for you on shutdown). */
  removeAll(): void {
    const client = this.pluginManager ? clientOf(this.pluginManager.game, false) : undefined;
    for (const [event, fn] of this.listeners.splice(0)) client?.off(event, fn as never);
  }

  destroy(): void {
    this.removeAll();
    this.scene = null;
    this.pluginManager = null;
  }
}
