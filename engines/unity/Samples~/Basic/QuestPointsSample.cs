// quest-points sample: add this component to any GameObject of a scene and build for WebGL. With
// `npx quest-points dev` running on this machine (relay, emulator and dev tokens on 127.0.0.1:8787), its button awards
// 10 points; the total shows in the HUD over the canvas and in the label, offline awards are sent when the network is back.
using QuestPointsSDK;
using UnityEngine;

public class QuestPointsSample : MonoBehaviour
{
    public string relayUrl = "http://127.0.0.1:8787/api";
    public string questId = "sample-quest";
    public string playerId = "dev-player";

    QuestPoints questPoints;
    double total;
    bool online;
    string status = "";

    void Awake()
    {
        #region create
        questPoints = QuestPoints.Create(new QuestPointsConfig
        {
            relayUrl = relayUrl,
            // quest-points dev's token route; in production, your login route answering { "token": "..." }.
            tokenUrl = "http://127.0.0.1:8787/__dev/token?sub=" + playerId,
            questId = questId,
            serviceUserId = playerId,
            hud = true,
        });
        #endregion create
        #region events
        questPoints.PointsChanged += view => total = view.totalPoints;
        questPoints.ConnectionChanged += value => online = value;
        questPoints.AwardRejected += award => status = "refused: " + award.message;
        questPoints.AuthRequired += message => status = "sign in to keep your points: " + message;
        questPoints.Unavailable += message => status = message;
        #endregion events
    }

    void OnGUI()
    {
        GUILayout.Label("Points: " + total + (online ? "" : " (offline: kept, sent later)"));
        #region award
        if (GUILayout.Button("Award 10 points")) questPoints.Award(10, "sample-award", "the sample's button");
        #endregion award
        if (status.Length > 0) GUILayout.Label(status);
    }

    void OnDestroy()
    {
        questPoints.Dispose();
    }
}
