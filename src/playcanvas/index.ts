// quest-points/playcanvas: an ESM Script (PlayCanvas 2) that binds the client to an entity: made in initialize(),
// let go when the script is destroyed (the entity destroyed, the script removed, or the app destroyed). The HUD goes
// over the app's canvas. Unlike the PixiJS and Babylon.js entries this one imports playcanvas (a Script must extend
// its class): the game's bundle has a single copy of it.
import { Script } from 'playcanvas';
import { bindOrReport, type EnginePluginOptions, type QuestPointsBinding } from '../engines/binding.js';

export { QuestPointsBinding, type EnginePluginOptions } from '../engines/binding.js';

/**
 * The Script. Give it its options as a property when creating it:
 *
 *   const qp = entity.script.create(QuestPointsScript, { properties: { options: { relayUrl: '/api', getToken, questId, serviceUserId } } });
 *   qp.questPoints?.award({ eventPoints: 10, eventName: 'gem' });  // once initialized (the app's next tick)
 *
 * or find it later with `entity.script.get('questPoints')`.
 */
export class QuestPointsScript extends Script {
  /** The name PlayCanvas registers it under: `entity.script.get('questPoints')`. */
  static override scriptName = 'questPoints';
  /** A client, or the options of createQuestPoints, and the HUD's: set through `properties` at create(). */
  options: EnginePluginOptions | undefined;
  /** The binding once initialized (client, typed events, HUD); null before and after. */
  questPoints: QuestPointsBinding | null = null;

  /** Called by PlayCanvas once, when the script first runs: binds the client, the HUD over the app's canvas (bad or missing options: reported on the console, questPoints stays null). */
  initialize(): void {
    this.questPoints = bindOrReport('QuestPointsScript', this.options, this.app.graphicsDevice.canvas);
    this.once('destroy', () => {
      void this.questPoints?.destroy();
      this.questPoints = null;
    });
  }
}
