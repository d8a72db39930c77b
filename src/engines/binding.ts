// What the PixiJS, Babylon.js and PlayCanvas plugins share: a client whose life is an engine object's (made or taken
// when the engine starts, closed when it is destroyed if the plugin made it), the listeners the game added through the
// plugin (removed with it), and <quest-points-hud> over the engine's canvas. Each plugin is only the engine's hook
// (an Application plugin, a Behavior, a Script) around one of these.
import {
  createQuestPoints,
  type AwardHandle,
  type AwardInput,
  type PointsView,
  type QuestPoints,
  type QuestPointsEvents,
  type QuestPointsOptions,
  type Snapshot,
} from '../client/index.js';
import { attachHud, type HudOptions, type QuestPointsHud } from '../hud/index.js';
import { OwnListeners } from './listeners.js';

/**
 * A plugin's options: a client the game made (`client`, left open when the engine goes), or the options of
 * createQuestPoints (the plugin makes the client and closes it with the engine); `hud` places <quest-points-hud> over
 * the engine's canvas (default: top-right, in the canvas's parent), `false` for none.
 */
export type EnginePluginOptions = ({ client: QuestPoints } | QuestPointsOptions) & {
  /** attachHud()'s options; `parent` defaults to the canvas's parent. `false`: no HUD. */
  hud?: HudOptions | false;
};

/**
 * The client as an engine plugin gives it to the game: award, the live view, the snapshot and the SDK's typed events;
 * every listener added here is removed when the engine object goes (destroy()).
 */
export class QuestPointsBinding {
  #client: QuestPoints | null;
  readonly #ownsClient: boolean;
  readonly #listeners = new OwnListeners();
  #hud: QuestPointsHud | undefined;
  /** Waits for a canvas not yet in the document (PixiJS makes it before the game appends it). */
  #observer: MutationObserver | undefined;

  readonly #onDestroy: (() => void) | undefined;

  /**
   * Makes (or takes) the client and places the HUD over `canvas`; `onDestroy` runs once in destroy() (a plugin
   * removes its engine hook there). Throws on missing options, as createQuestPoints does.
   */
  constructor(options: EnginePluginOptions, canvas: HTMLCanvasElement | null | undefined, onDestroy?: () => void) {
    this.#onDestroy = onDestroy;
    if (!options || typeof options !== 'object')
      throw new TypeError('quest-points: options are required: { client } or the options of createQuestPoints');
    const { hud, ...rest } = options;
    if ('client' in rest && rest.client) {
      this.#client = rest.client;
      this.#ownsClient = false;
    } else {
      this.#client = createQuestPoints(rest as QuestPointsOptions);
      this.#ownsClient = true;
    }
    if (hud !== false && typeof document !== 'undefined') this.#placeHud(canvas, hud ?? {});
  }

  /** The SDK client. Throws once destroyed. */
  get client(): QuestPoints {
    if (!this.#client) throw new Error('quest-points: the engine object this client belonged to is destroyed');
    return this.#client;
  }

  /** The <quest-points-hud> over the canvas (undefined with `hud: false`, before the canvas is in the page, or once destroyed). */
  get hud(): QuestPointsHud | undefined {
    return this.#hud;
  }

  /** The client's award(): queues the award durably and returns its handle. */
  award(input: AwardInput): AwardHandle {
    return this.client.award(input);
  }

  /** The live view now (total, pending, history); ids default to the client's own quest and player. */
  viewPoints(questId?: string, serviceUserId?: string): PointsView {
    return this.client.viewPoints(questId, serviceUserId);
  }

  /** The client's getSnapshot(): connection, queue and storage state now. */
  getSnapshot(): Snapshot {
    return this.client.getSnapshot();
  }

  /** Listen to an SDK event until the engine object goes (or off() removes it). Returns this, for chaining. */
  on<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): this {
    this.#listeners.add(this.client, event, fn);
    return this;
  }

  /** Listen to the next occurrence of an SDK event, within the engine object's life. Returns this, for chaining. */
  once<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): this {
    this.#listeners.add(this.client, event, fn, true);
    return this;
  }

  /** Remove the listener `fn` of `event` added here, or without `fn` every listener of `event` added here. */
  off<E extends keyof QuestPointsEvents>(event: E, fn?: QuestPointsEvents[E]): this {
    this.#listeners.remove(this.client, event, fn);
    return this;
  }

  /**
   * Removes the listeners added here and the HUD, stops waiting for the canvas, and closes the client if the plugin
   * made it (queued awards stay in IndexedDB for the next session). A second call does nothing.
   */
  destroy(): Promise<void> {
    const client = this.#client;
    if (!client) return Promise.resolve();
    this.#listeners.clear(client);
    this.#observer?.disconnect();
    this.#observer = undefined;
    if (this.#hud) {
      this.#hud.client = undefined;
      this.#hud.remove();
      this.#hud = undefined;
    }
    this.#client = null;
    this.#onDestroy?.();
    return this.#ownsClient ? client.close() : Promise.resolve();
  }

  #placeHud(canvas: HTMLCanvasElement | null | undefined, options: HudOptions): void {
    const place = () => {
      const parent = options.parent ?? canvas?.parentElement;
      if (!parent || !this.#client) return false;
      // The element fills its positioned parent; a static parent would put it over the page instead of the canvas.
      const position = parent instanceof HTMLElement ? getComputedStyle(parent).position : 'relative';
      if (!position || position === 'static') (parent as HTMLElement).style.position = 'relative';
      this.#hud = attachHud(this.#client, { ...options, parent });
      return true;
    };
    if (place() || !canvas) return;
    this.#observer = new MutationObserver(() => {
      if (!canvas.isConnected) return;
      this.#observer?.disconnect();
      this.#observer = undefined;
      place();
    });
    this.#observer.observe(document.documentElement, { childList: true, subtree: true });
  }
}

/**
 * A binding, or null with the reason on the console: a plugin runs inside the engine's start (app.init(), a Behavior's
 * attach, a Script's initialize), and nothing of ours may throw out of a game's start. Missing options are the game's
 * bug; the error names them.
 */
export function bindOrReport(
  plugin: string,
  options: EnginePluginOptions | undefined,
  canvas: HTMLCanvasElement | null | undefined,
  onDestroy?: () => void,
): QuestPointsBinding | null {
  try {
    if (!options) throw new TypeError(`${plugin}: options are required: { client } or the options of createQuestPoints`);
    return new QuestPointsBinding(options, canvas, onDestroy);
  } catch (error) {
    console.error(`quest-points: ${plugin} is not bound:`, error);
    return null;
  }
}
