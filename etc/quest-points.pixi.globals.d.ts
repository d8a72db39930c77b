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
