// quest-points for Unity WebGL: award quest points from C#, reliably. The SDK itself (the package's script-tag build,
// carried as Plugins/WebGL/QuestPoints.jspre) keeps every award in an IndexedDB outbox with its idempotency key and
// sends it through the operator relay, retrying until the service answers; this class is its C# face over
// Plugins/WebGL/QuestPoints.jslib. In the Editor and on other platforms there is no browser: Create returns a client
// that sends nothing, says so once in the console, and raises Unavailable on each Award.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using UnityEngine;

namespace QuestPointsSDK
{
    /// <summary>One quest-points client. Create it once (for instance in a bootstrap MonoBehaviour's Awake) and Dispose it in OnDestroy.</summary>
    public sealed class QuestPoints : IDisposable
    {
        /// <summary>The .jslib's event callback: (handle, event type, JSON payload); both strings live for the call only.</summary>
        public delegate void EventCallback(int handle, string type, string json);

        /// <summary>What the Editor and non-WebGL platforms log once and pass to Unavailable.</summary>
        public const string UnavailableMessage =
            "quest-points sends awards only from a WebGL player build (it runs in the browser, through the page's IndexedDB and " +
            "fetch). In the Editor and on this platform nothing is sent or kept: Award returns null and raises Unavailable.";

#if UNITY_WEBGL && !UNITY_EDITOR
        [DllImport("__Internal")] static extern int QuestPoints_Create(string configJson, EventCallback callback);
        [DllImport("__Internal")] static extern string QuestPoints_Award(int handle, double points, string eventName, string description);
        [DllImport("__Internal")] static extern string QuestPoints_View(int handle);
        [DllImport("__Internal")] static extern void QuestPoints_Flush(int handle);
        [DllImport("__Internal")] static extern void QuestPoints_ProvideToken(int handle, string token);
        [DllImport("__Internal")] static extern void QuestPoints_FailToken(int handle, string message);
        [DllImport("__Internal")] static extern void QuestPoints_Dispose(int handle);
        [DllImport("__Internal")] static extern string QuestPoints_LastError();
#endif

        static readonly Dictionary<int, QuestPoints> Live = new Dictionary<int, QuestPoints>();
        static bool warned;

        readonly int handle;
        bool disposed;

        /// <summary>The player's points changed (an award queued, sent, or a read of the service): total and history with each entry's state.</summary>
        public event Action<PointsView> PointsChanged;
        /// <summary>The relay became unreachable (false) or answered again (true).</summary>
        public event Action<bool> ConnectionChanged;
        /// <summary>The number of awards still queued on this device changed.</summary>
        public event Action<int> QueueChanged;
        /// <summary>The service acknowledged an award: it left the outbox.</summary>
        public event Action<AwardInfo> AwardSent;
        /// <summary>An award was refused for good (it is kept as a dead letter in the page's storage).</summary>
        public event Action<RejectedAward> AwardRejected;
        /// <summary>No token works: the player must sign in. Sending resumes by itself once a token works.</summary>
        public event Action<string> AuthRequired;
        /// <summary>The SDK needs a player token and the config has no tokenUrl: answer with ProvideToken or FailToken.</summary>
        public event Action TokenRequested;
        /// <summary>IndexedDB cannot be used ("unavailable", "blocked", "quota", ...): awards are kept in memory until it works.</summary>
        public event Action<string> StorageDegraded;
        /// <summary>Raised by Award in the Editor and on non-WebGL platforms, where nothing is sent (UnavailableMessage).</summary>
        public event Action<string> Unavailable;

        /// <summary>True in a WebGL player build, the one place quest-points sends awards.</summary>
        public static bool IsSupported
        {
            get
            {
#if UNITY_WEBGL && !UNITY_EDITOR
                return true;
#else
                return false;
#endif
            }
        }

        /// <summary>False in the Editor, on other platforms, and after Dispose.</summary>
        public bool IsAvailable { get { return handle > 0 && !disposed; } }
        /// <summary>The last ConnectionChanged value (false until the first answer).</summary>
        public bool IsOnline { get; private set; }
        /// <summary>The last QueueChanged value.</summary>
        public int QueueSize { get; private set; }

        QuestPoints(int handle)
        {
            this.handle = handle;
        }

        /// <summary>
        /// Starts a client. Throws QuestPointsException when the SDK refuses the config (Code "config" or "invalid") or
        /// is missing from the build. Off WebGL it returns an unavailable client (see UnavailableMessage).
        /// </summary>
        public static QuestPoints Create(QuestPointsConfig config)
        {
            if (config == null) throw new ArgumentNullException("config");
#if UNITY_WEBGL && !UNITY_EDITOR
            int created = QuestPoints_Create(JsonUtility.ToJson(config), OnEvent);
            if (created == 0) throw Refusal();
            var client = new QuestPoints(created);
            Live[created] = client;
            return client;
#else
            WarnOnce();
            return new QuestPoints(0);
#endif
        }

        /// <summary>
        /// Queues an award and returns its idempotency key at once; it is sent in the background and survives a reload
        /// or a closed tab (it is sent by the next page). eventName and description are optional (null). Throws
        /// QuestPointsException: "invalid" (points not finite, a name too long: Field and the message say which),
        /// "queue-full". Off WebGL: returns null and raises Unavailable.
        /// </summary>
        public string Award(double points, string eventName = null, string description = null)
        {
            if (disposed) throw new ObjectDisposedException("QuestPoints");
#if UNITY_WEBGL && !UNITY_EDITOR
            string key = QuestPoints_Award(handle, points, eventName, description);
            if (key == null) throw Refusal();
            return key;
#else
            WarnOnce();
            if (Unavailable != null) Unavailable(UnavailableMessage);
            return null;
#endif
        }

        /// <summary>The player's points now (no request): null off WebGL and after Dispose.</summary>
        public PointsView Points
        {
            get
            {
#if UNITY_WEBGL && !UNITY_EDITOR
                if (!IsAvailable) return null;
                string json = QuestPoints_View(handle);
                return json == null ? null : JsonUtility.FromJson<PointsView>(json);
#else
                return null;
#endif
            }
        }

        /// <summary>Sends what is queued now, without waiting for the retry backoff (for instance at a level's end).</summary>
        public void Flush()
        {
#if UNITY_WEBGL && !UNITY_EDITOR
            if (IsAvailable) QuestPoints_Flush(handle);
#endif
        }

        /// <summary>Answers TokenRequested: the signed-in player's relay token.</summary>
        public void ProvideToken(string token)
        {
            if (string.IsNullOrEmpty(token)) throw new ArgumentException("a token is a non-empty string; call FailToken when there is none", "token");
#if UNITY_WEBGL && !UNITY_EDITOR
            if (IsAvailable) QuestPoints_ProvideToken(handle, token);
#endif
        }

        /// <summary>Answers TokenRequested when there is no token (no player signed in): AuthRequired follows, sending pauses.</summary>
        public void FailToken(string reason)
        {
#if UNITY_WEBGL && !UNITY_EDITOR
            if (IsAvailable) QuestPoints_FailToken(handle, reason ?? "no token");
#endif
        }

        /// <summary>Stops the client and its events. Awards still queued stay in the page's storage and are sent by the next client.</summary>
        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            if (handle == 0) return;
            Live.Remove(handle);
#if UNITY_WEBGL && !UNITY_EDITOR
            QuestPoints_Dispose(handle);
#endif
        }

        [AOT.MonoPInvokeCallback(typeof(EventCallback))]
        static void OnEvent(int handle, string type, string json)
        {
            QuestPoints client;
            if (!Live.TryGetValue(handle, out client)) return;
            // A game's handler that throws must not unwind into the browser's event loop (the .jslib frees the strings after).
            try
            {
                client.Dispatch(type, json);
            }
            catch (Exception exception)
            {
                Debug.LogException(exception);
            }
        }

        // One case per event type the .jslib sends (a test checks both lists and each payload's fields).
        void Dispatch(string type, string json)
        {
            switch (type)
            {
                case "points":
                    if (PointsChanged != null) PointsChanged(JsonUtility.FromJson<PointsView>(json));
                    break;
                case "connection":
                    IsOnline = JsonUtility.FromJson<ConnectionState>(json).online;
                    if (ConnectionChanged != null) ConnectionChanged(IsOnline);
                    break;
                case "queue":
                    QueueSize = JsonUtility.FromJson<QueueState>(json).queueSize;
                    if (QueueChanged != null) QueueChanged(QueueSize);
                    break;
                case "sent":
                    if (AwardSent != null) AwardSent(JsonUtility.FromJson<AwardInfo>(json));
                    break;
                case "rejected":
                    if (AwardRejected != null) AwardRejected(JsonUtility.FromJson<RejectedAward>(json));
                    break;
                case "auth":
                    if (AuthRequired != null) AuthRequired(JsonUtility.FromJson<AuthState>(json).message);
                    break;
                case "storage":
                    if (StorageDegraded != null) StorageDegraded(JsonUtility.FromJson<StorageState>(json).reason);
                    break;
                case "token":
                    if (TokenRequested != null) TokenRequested();
                    else FailToken("the config has no tokenUrl and nothing handles QuestPoints.TokenRequested");
                    break;
            }
        }

        static QuestPointsException Refusal()
        {
#if UNITY_WEBGL && !UNITY_EDITOR
            var error = JsonUtility.FromJson<ErrorInfo>(QuestPoints_LastError());
            return new QuestPointsException(error.code, error.field, error.message);
#else
            return new QuestPointsException("unavailable", "", UnavailableMessage);
#endif
        }

        static void WarnOnce()
        {
            if (warned) return;
            warned = true;
            Debug.LogWarning(UnavailableMessage);
        }
    }
}
