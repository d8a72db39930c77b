declare global {
    interface HTMLElementTagNameMap {
        "quest-points-hud": QuestPointsHud;
    }
}
