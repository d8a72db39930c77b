// quest-points/pixi: a PixiJS 8 Application plugin. Registered once with `extensions.add(QuestPointsPixiPlugin)`, it
// gives every Application initialised with a `questPoints` option an `app.questPoints` (the client, its typed events
// and the HUD over `app.canvas`), made in `app.init()` and undone in `app.destroy()`. It imports nothing from
// pixi.js at run time, so it works with whichever copy of PixiJS the game loads.
import type { ExtensionType } from 'pixi.js';
import { bindOrReport, type EnginePluginOptions, type QuestPointsBinding } from '../engines/binding.js';

export { QuestPointsBinding, type EnginePluginOptions } from '../engines/binding.js';

/** What the plugin needs of a PixiJS Application: its canvas (app.canvas, there once init() made the renderer). */
export interface PixiApplicationLike {
  /** The renderer's canvas. */
  readonly canvas: HTMLCanvasElement;
  /** Set by the plugin in init(), null after destroy() (and for an app without the `questPoints` option). */
  questPoints?: QuestPointsBinding | null;
}

/**
 * The Application plugin (PixiJS 8's ApplicationPlugin contract: init/destroy, called with the app as `this`).
 *
 *   extensions.add(QuestPointsPixiPlugin);
 *   await app.init({ width: 800, height: 600, questPoints: { relayUrl: '/api', getToken, questId, serviceUserId } });
 *   app.questPoints.award({ eventPoints: 10, eventName: 'level_up' });
 */
export const QuestPointsPixiPlugin = {
  /** PixiJS's extension metadata: an Application plugin ('application' is ExtensionType.Application). */
  extension: { type: 'application' as ExtensionType.Application, name: 'quest-points' },

  /**
   * Called by `app.init(options)` after the renderer exists: binds `options.questPoints`, if given, to the app. Bad
   * options are reported on the console (app.questPoints stays null), never thrown out of the game's start.
   */
  init(this: PixiApplicationLike, options: { questPoints?: EnginePluginOptions }): void {
    this.questPoints = options?.questPoints ? bindOrReport('QuestPointsPixiPlugin', options.questPoints, this.canvas) : null;
  },

  /** Called by `app.destroy()`: listeners and HUD removed, the client closed if the plugin made it. */
  destroy(this: PixiApplicationLike): void {
    void this.questPoints?.destroy();
    this.questPoints = null;
  },
};

declare global {
  namespace PixiMixins {
    interface Application {
      /** quest-points' binding (QuestPointsPixiPlugin): null when the app was initialised without `questPoints`. */
      questPoints: QuestPointsBinding | null;
    }
    interface ApplicationOptions {
      /** quest-points: a client or createQuestPoints options, and the HUD's (QuestPointsPixiPlugin). */
      questPoints?: EnginePluginOptions;
    }
  }
}
