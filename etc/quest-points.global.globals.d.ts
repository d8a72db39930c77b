import { createQuestPoints, QuestPointsError } from "../client/index.js";
import { attachHud, QuestPointsHud } from "../hud/index.js";
import { readToken, tokenFrom } from "../sw/token.js";
declare const api: Readonly<{
    createQuestPoints: typeof createQuestPoints;
    tokenFrom: typeof tokenFrom;
    readToken: typeof readToken;
    attachHud: typeof attachHud;
    QuestPointsHud: typeof QuestPointsHud;
    HUD_STRINGS: {
        total: string;
        sending: string;
        saved: string;
        waiting: string;
        sent: string;
        confirmed: string;
        rejected: string;
        budget: string;
        once: string;
        cooldown: string;
        campaign: string;
        banned: string;
        online: string;
        offline: string;
        signIn: string;
        unreachable: string;
        history: string;
        deadLetters: string;
    };
    QuestPointsError: typeof QuestPointsError;
    pointsKey: (questId: string, serviceUserId: string) => string;
    version: string;
}>;
declare global {
    var QuestPoints: typeof api;
}
export {};
