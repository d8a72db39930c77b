import type { HudClient } from "./client.js";
import { QuestPointsHud } from "./element.js";
import type { HudStrings } from "./strings.js";
export { QuestPointsHud, type ToastState } from "./element.js";
export { HUD_STRINGS, type HudStrings } from "./strings.js";
export type { HudClient, HudStatus } from "./client.js";
export type HudPosition = "top-right" | "top-left" | "bottom-right" | "bottom-left" | "inline";
export interface HudOptions {
    parent?: Element;
    position?: HudPosition;
    history?: number;
    toasts?: number;
    toastMs?: number;
    strings?: Partial<HudStrings>;
}
export declare function attachHud(client: HudClient, options?: HudOptions): QuestPointsHud;
declare global {
    interface HTMLElementTagNameMap {
        "quest-points-hud": QuestPointsHud;
    }
}
