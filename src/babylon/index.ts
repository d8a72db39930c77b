// quest-points/babylon: the client bound to a Babylon.js node or scene. A Behavior (Babylon's attach/detach contract)
// for any node, `camera.addBehavior(new QuestPointsBehavior(options))`, or questPointsForScene(scene, options) tied to
// the scene's onDisposeObservable. It imports only types from @babylonjs/core, so it adds no Babylon code to a bundle
// and works with the game's own copy.
import type { Behavior } from '@babylonjs/core/Behaviors/behavior.js';
import type { Node } from '@babylonjs/core/node.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { bindOrReport, type EnginePluginOptions, QuestPointsBinding } from '../engines/binding.js';

export { QuestPointsBinding, type EnginePluginOptions } from '../engines/binding.js';

/**
 * A Babylon.js Behavior: the client is made (or taken) when attached and let go when detached, which Babylon does when
 * the node is disposed (and so when its scene or engine is) or on `node.removeBehavior(behavior)`.
 *
 *   const qp = new QuestPointsBehavior({ relayUrl: '/api', getToken, questId, serviceUserId });
 *   camera.addBehavior(qp);
 *   qp.questPoints?.award({ eventPoints: 10, eventName: 'gem' });
 */
export class QuestPointsBehavior implements Behavior<Node> {
  /** The Behavior's name, as Babylon lists it (node.getBehaviorByName('QuestPoints')). */
  name = 'QuestPoints';
  /** The node it is attached to; null when detached. */
  attachedNode: Node | null = null;
  /** The binding while attached (client, typed events, HUD); null when detached or when the options were refused. */
  questPoints: QuestPointsBinding | null = null;
  readonly #options: EnginePluginOptions;

  /** The options are used at attach(): a client, or the options of createQuestPoints, and the HUD's. */
  constructor(options: EnginePluginOptions) {
    this.#options = options;
  }

  /** Part of Babylon's Behavior contract; nothing to prepare. */
  init(): void {}

  /**
   * Called by node.addBehavior(): binds the client to the node, the HUD over the engine's canvas. Bad options are
   * reported on the console (questPoints stays null), never thrown into the engine.
   */
  attach(node: Node): void {
    this.detach();
    this.attachedNode = node;
    this.questPoints = bindOrReport('QuestPointsBehavior', this.#options, node.getEngine().getRenderingCanvas());
  }

  /** Called by Babylon when the node is disposed or the behavior removed: listeners and HUD removed, the client closed if made here. */
  detach(): void {
    void this.questPoints?.destroy();
    this.questPoints = null;
    this.attachedNode = null;
  }
}

/**
 * The client bound to a scene without a node: made (or taken) now, let go when the scene is disposed, or earlier by
 * the binding's destroy() (which removes its observer from the scene too). Called by the game, not by the engine: it
 * throws on missing or invalid options, as createQuestPoints does.
 */
export function questPointsForScene(scene: Scene, options: EnginePluginOptions): QuestPointsBinding {
  const binding: QuestPointsBinding = new QuestPointsBinding(options, scene.getEngine().getRenderingCanvas(), () =>
    scene.onDisposeObservable.remove(observer),
  );
  const observer = scene.onDisposeObservable.addOnce(() => void binding.destroy());
  return binding;
}
