import type { ExtensionType } from "pixi.js";
import { type EnginePluginOptions, type QuestPointsBinding } from "../engines/binding.js";
export { QuestPointsBinding, type EnginePluginOptions } from "../engines/binding.js";
export interface PixiApplicationLike {
    readonly canvas: HTMLCanvasElement;
    questPoints?: QuestPointsBinding | null;
}
export declare const QuestPointsPixiPlugin: {
    extension: {
        type: ExtensionType.Application;
        name: string;
    };
    init(this: PixiApplicationLike, options: {
        questPoints?: EnginePluginOptions;
    }): void;
    destroy(this: PixiApplicationLike): void;
};
declare global {
    namespace PixiMixins {
        interface Application {
            questPoints: QuestPointsBinding | null;
        }
        interface ApplicationOptions {
            questPoints?: EnginePluginOptions;
        }
    }
}
