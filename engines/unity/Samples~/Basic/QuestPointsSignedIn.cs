// quest-points sample: the player token handed in from C#, for games whose login runs in C# (a platform SDK, your
// own login request). With no tokenUrl in the config, the SDK raises TokenRequested whenever it needs a token (the
// first send, then before the token expires or after the relay refused it) and waits for the answer.
using QuestPointsSDK;
using UnityEngine;

public class QuestPointsSignedIn : MonoBehaviour
{
    public string relayUrl = "https://game.example/api";
    public string questId = "sample-quest";

    QuestPoints questPoints;
    string playerId;
    string playerToken;

    /// <summary>Call when your login completes: the player's id and the relay token your server signed for them.</summary>
    public void SignedIn(string id, string token)
    {
        playerId = id;
        playerToken = token;
        questPoints = QuestPoints.Create(new QuestPointsConfig { relayUrl = relayUrl, questId = questId, serviceUserId = playerId });
        questPoints.TokenRequested += OnTokenRequested;
    }

    #region token
    void OnTokenRequested()
    {
        if (string.IsNullOrEmpty(playerToken)) questPoints.FailToken("not signed in");
        else questPoints.ProvideToken(playerToken);
    }
    #endregion token

    void OnDestroy()
    {
        if (questPoints != null) questPoints.Dispose();
    }
}
