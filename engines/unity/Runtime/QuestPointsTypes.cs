// The C# shapes of quest-points' configuration and events. Field names are the JSON names the .jslib writes and
// reads (JsonUtility maps them one to one; a test compares them with the .jslib's payloads).
using System;

namespace QuestPointsSDK
{
    /// <summary>How QuestPoints.Create connects. Empty strings mean "not set".</summary>
    [Serializable]
    public class QuestPointsConfig
    {
        /// <summary>The operator relay's base URL, absolute or relative to the page (default "/api").</summary>
        public string relayUrl = "/api";
        /// <summary>
        /// A same-origin URL answering JSON { "token": "..." } for the signed-in player (your login route; "/__dev/token?sub=..."
        /// under quest-points dev). Empty: the SDK raises TokenRequested and waits for ProvideToken.
        /// </summary>
        public string tokenUrl = "";
        /// <summary>The quest awards go to.</summary>
        public string questId = "";
        /// <summary>The player's id in the service (the relay accepts only its token's subject).</summary>
        public string serviceUserId = "";
        /// <summary>Names the IndexedDB outbox: two games on one origin use two names (default "quest-points").</summary>
        public string storageName = "";
        /// <summary>The most history entries a PointsView holds (0: the SDK's default, 100).</summary>
        public int historyLimit;
        /// <summary>Shows the SDK's HUD (the player's total, a toast per award) over the game's canvas.</summary>
        public bool hud;
        /// <summary>Where the HUD sits: "top-right" (default), "top-left", "bottom-right" or "bottom-left".</summary>
        public string hudPosition = "";
    }

    /// <summary>One line of a player's history, newest first in PointsView.history.</summary>
    [Serializable]
    public class HistoryEntry
    {
        /// <summary>When the service received it, ISO 8601 UTC; empty while it is pending.</summary>
        public string createdAt;
        public double eventPoints;
        public string eventName;
        public string eventDescription;
        /// <summary>"pending" (queued on this device), "sent" (acknowledged) or "confirmed" (read back from the service).</summary>
        public string state;
        /// <summary>The key Award returned, for this device's pending and sent awards; empty for confirmed entries.</summary>
        public string idempotencyKey;
    }

    /// <summary>A player's points in one quest, as the game shows them.</summary>
    [Serializable]
    public class PointsView
    {
        public string questId;
        public string serviceUserId;
        /// <summary>confirmedPoints + sentPoints + pendingPoints: what to show.</summary>
        public double totalPoints;
        /// <summary>As last read from the service.</summary>
        public double confirmedPoints;
        /// <summary>Acknowledged by the service since that read.</summary>
        public double sentPoints;
        /// <summary>Still queued on this device (offline, or on its way).</summary>
        public double pendingPoints;
        /// <summary>True when the confirmed part is not from a read of this page (cached, or the last read failed).</summary>
        public bool stale;
        public HistoryEntry[] history;
    }

    /// <summary>An award this device made: AwardSent's payload.</summary>
    [Serializable]
    public class AwardInfo
    {
        public string idempotencyKey;
        public string questId;
        public string serviceUserId;
        public double eventPoints;
        public string eventName;
        public string eventDescription;
    }

    /// <summary>An award refused for good (a final 4xx: policy, validation): AwardRejected's payload.</summary>
    [Serializable]
    public class RejectedAward : AwardInfo
    {
        /// <summary>The HTTP status of the refusal.</summary>
        public int status;
        /// <summary>The refusal's message, for the operator's logs (it may name the rule and its numbers): not for players.</summary>
        public string message;
        /// <summary>
        /// The relay's machine-readable reason: a rule of the operator's economy ("budget", "once", "cooldown",
        /// "campaign", "banned"), "policy", "invalid", or another code of a newer relay; "" when the service refused
        /// (no code). Word it for the player by this code (docs/hud.md lists generic words), never by the message.
        /// </summary>
        public string code;
    }

    /// <summary>Payload of the "connection" event.</summary>
    [Serializable]
    public class ConnectionState
    {
        public bool online;
    }

    /// <summary>Payload of the "queue" event.</summary>
    [Serializable]
    public class QueueState
    {
        public int queueSize;
    }

    /// <summary>Payload of the "auth" event: why no token works.</summary>
    [Serializable]
    public class AuthState
    {
        public string message;
    }

    /// <summary>Payload of the "storage" event: why IndexedDB is not used (awards are then kept in memory).</summary>
    [Serializable]
    public class StorageState
    {
        public string reason;
    }

    /// <summary>QuestPoints_LastError's JSON: why Create or Award was refused.</summary>
    [Serializable]
    public class ErrorInfo
    {
        public string code;
        public string message;
        public string field;
    }

    /// <summary>
    /// Thrown by Create and Award when the SDK refuses: Code "invalid" (Field names the input, the message the rule),
    /// "queue-full", "config" (or the SDK missing from the build), "closed".
    /// </summary>
    public class QuestPointsException : Exception
    {
        public readonly string Code;
        public readonly string Field;

        public QuestPointsException(string code, string field, string message) : base(message)
        {
            Code = code;
            Field = field;
        }
    }
}
