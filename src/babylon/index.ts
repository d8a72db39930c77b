// quest-points/babylon: the client bound to a Babylon.js node or scene. A Behavior (Babylon's attach/detach contract)
// for any node, `camera.addBehavior(new QuestPointsBehavior(options))`, or questPointsForScene(scene, options) tied to
// the scene's onDisposeObservable. It imports nothing from @babylonjs/core, so it works with the game's own copy (npm
// or the CDN's BABYLON global).
import { bindOrReport, type EnginePluginOptions, QuestPointsBinding } from '../engines/binding.js';

export { QuestPointsBinding, type EnginePluginOptions } from '../engines/binding.js';

/** What the plugin needs of a Babylon.js Scene: its engine's canvas and its dispose observable. */
export interface BabylonSceneLike {
  /** The scene's engine (Engine, WebGPUEngine): the HUD goes over its rendering canvas. */
  getEngine(): { getRenderingCanvas(): HTMLCanvasElement | null };
  /** Notified when the scene is disposed (Observable<Scene>). */
  onDisposeObservable: {
    /** Adds an observer called once; returns it (for remove). */
    addOnce(callback: () => void): unknown;
    /** Removes an observer added before. */
    remove(observer: never): boolean;
  };
}

/** What the Behavior needs of the node it is attached to (any Babylon Node: a camera, a mesh, a TransformNode). */
export interface BabylonNodeLike {
  /** The node's scene. */
  getScene(): BabylonSceneLike;
}

/**
 * A Babylon.js Behavior: the client is made (or taken) when attached and let go when detached, which Babylon does when
 * the node is disposed (and so when its scene is) or on `node.removeBehavior(behavior)`.
 *
 *   const qp = new QuestPointsBehavior({ relayUrl: '/api', getToken, questId, serviceUserId });
 *   camera.addBehavior(qp);
 *   qp.questPoints?.award({ eventPoints: 10, eventName: 'gem' });
 */
export class QuestPointsBehavior {
  /** The Behavior's name, as Babylon lists it (node.getBehaviorByName('QuestPoints')). */
  name = 'QuestPoints';
  /** The node it is attached to; null when detached. */
  attachedNode: BabylonNodeLike | null = null;
  /** The binding while attached (client, typed events, HUD); null when detached. */
  questPoints: QuestPointsBinding | null = null;
  readonly #options: EnginePluginOptions;

  /** The options are used at attach(): a client, or the options of createQuestPoints, and the HUD's. */
  constructor(options: EnginePluginOptions) {
    this.#options = options;
  }

  /** Part of Babylon's Behavior contract; nothing to prepare. */
  init(): void {}

  /** Called by node.addBehavior(): binds the client to the node's scene, the HUD over the engine's canvas (bad options: reported on the console, questPoints stays null). */
  attach(node: BabylonNodeLike): void {
    this.detach();
    this.attachedNode = node;
    this.questPoints = bindOrReport('QuestPointsBehavior', this.#options, node.getScene().getEngine().getRenderingCanvas());
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
export function questPointsForScene(scene: BabylonSceneLike, options: EnginePluginOptions): QuestPointsBinding {
  let observer: unknown;
  const binding = new QuestPointsBinding(options, scene.getEngine().getRenderingCanvas(), () => scene.onDisposeObservable.remove(observer as never));
  observer = scene.onDisposeObservable.addOnce(() => void binding.destroy());
  return binding;
}
