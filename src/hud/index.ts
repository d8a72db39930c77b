// quest-points/hud: <quest-points-hud>, a drop-in HUD for any engine. Importing the module defines the element.
import type { HudClient } from './client.js';
import { QuestPointsHud } from './element.js';
import type { HudStrings } from './strings.js';

export { QuestPointsHud, type ToastState } from './element.js';
export { HUD_STRINGS, type HudStrings } from './strings.js';
export type { HudClient, HudStatus } from './client.js';

/** Where the element sits: a corner of its positioned parent (overlaid, absolutely positioned), or 'inline' in the page's flow. */
export type HudPosition = 'top-right' | 'top-left' | 'bottom-right' | 'bottom-left' | 'inline';

/** attachHud()'s options: each one sets the attribute of the same name (toastMs: toast-ms) or the `strings` property. */
export interface HudOptions {
  /** Where the element goes (default document.body); over a canvas, the canvas's positioned container. */
  parent?: Element;
  /** Default 'top-right' of the parent; 'inline' flows with the page. */
  position?: HudPosition;
  /** History entries shown under the toasts (default 0: none). */
  history?: number;
  /** Toasts shown at once (default 3). */
  toasts?: number;
  /** How long a toast stays after its last change, ms (default 4000; 0: until newer ones push it out). */
  toastMs?: number;
  /** Words to replace (default HUD_STRINGS, in English). */
  strings?: Partial<HudStrings>;
}

if (typeof customElements !== 'undefined' && !customElements.get('quest-points-hud')) customElements.define('quest-points-hud', QuestPointsHud);

/** Makes a <quest-points-hud> for `client`, appends it to `options.parent` (or the body) and returns it. */
export function attachHud(client: HudClient, { parent = document.body, strings, toastMs, ...attributes }: HudOptions = {}): QuestPointsHud {
  const hud = document.createElement('quest-points-hud');
  // position, history, toasts and toast-ms: each given one sets the attribute of its name (for-in: the script-tag
  // build lowers a destructuring for-of to helper calls).
  const named: Record<string, unknown> = { ...attributes, 'toast-ms': toastMs };
  for (const name in named) if (named[name] !== undefined) hud.setAttribute(name, String(named[name]));
  if (strings) hud.strings = strings;
  hud.client = client;
  parent.append(hud);
  return hud;
}

declare global {
  interface HTMLElementTagNameMap {
    'quest-points-hud': QuestPointsHud;
  }
}
