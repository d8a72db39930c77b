// quest-points for Unity WebGL: the bridge between the C# API (Runtime/QuestPoints.cs) and the SDK, which
// QuestPoints.jspre (the package's script-tag build, window.QuestPoints) puts on the page. ES5 only: Unity's
// emscripten library processor reads this file as ES5.
//
// Conventions (each C# [DllImport("__Internal")] in QuestPoints.cs has a function here of the same name and number of
// parameters; a test checks it):
// - Strings from C# arrive as pointers, read with UTF8ToString; the C# side owns them.
// - A string this file returns is allocated here (lengthBytesUTF8 + 1, _malloc, stringToUTF8); IL2CPP's marshaller
//   copies it into a C# string and frees it (a C caller must free() it).
// - Events go to one C# callback, void (int handle, char* type, char* json), through makeDynCall. The two strings
//   are allocated here for the call and freed here as soon as it returns: C# copies them during the call.
// - JSON in, JSON out: the payloads' field names are the C# event classes' fields (a test compares them).
var QuestPointsLibrary = {
  $QuestPointsBridge: {
    clients: {},
    nextHandle: 1,
    lastError: '',

    sdk: function () {
      var root = typeof globalThis !== 'undefined' ? globalThis : window;
      return root.QuestPoints;
    },

    // A string for the C side: null (0) for null or undefined.
    allocate: function (text) {
      if (text === null || text === undefined) return 0;
      var size = lengthBytesUTF8(text) + 1;
      var pointer = _malloc(size);
      stringToUTF8(text, pointer, size);
      return pointer;
    },

    // Reads an optional string argument: a null pointer or an empty string is "not given".
    optional: function (pointer) {
      var text = pointer ? UTF8ToString(pointer) : '';
      return text === '' ? undefined : text;
    },

    remember: function (error) {
      QuestPointsBridge.lastError = JSON.stringify({
        code: (error && error.code) || 'error',
        message: String((error && error.message) || error),
        field: (error && error.field) || '',
      });
    },

    send: function (entry, type, payload) {
      if (entry.closed) return;
      var typePointer = QuestPointsBridge.allocate(type);
      var jsonPointer = QuestPointsBridge.allocate(JSON.stringify(payload));
      try {
        {{{ makeDynCall('viii', 'entry.callback') }}}(entry.handle, typePointer, jsonPointer);
      } finally {
        _free(typePointer);
        _free(jsonPointer);
      }
    },

    award: function (award) {
      return {
        idempotencyKey: award.idempotencyKey,
        questId: award.questId,
        serviceUserId: award.serviceUserId,
        eventPoints: award.eventPoints,
        eventName: award.eventName || '',
        eventDescription: award.eventDescription || '',
      };
    },

    // A PointsView as the C# PointsView class reads it (JsonUtility: no nulls, no dictionaries).
    view: function (view) {
      var history = [];
      for (var i = 0; i < view.history.length; i++) {
        var entry = view.history[i];
        history.push({
          createdAt: entry.createdAt,
          eventPoints: entry.eventPoints,
          eventName: entry.eventName,
          eventDescription: entry.eventDescription,
          state: entry.state,
          idempotencyKey: entry.idempotencyKey || '',
        });
      }
      return {
        questId: view.questId,
        serviceUserId: view.serviceUserId,
        totalPoints: view.totalPoints,
        confirmedPoints: view.confirmedPoints,
        sentPoints: view.sentPoints,
        pendingPoints: view.pendingPoints,
        stale: view.stale,
        history: history,
      };
    },

    // The SDK's events, each forwarded as one C# event. Kept on the entry so Dispose removes exactly these.
    listeners: function (entry) {
      var bridge = QuestPointsBridge;
      return {
        'points:changed': function (e) {
          bridge.send(entry, 'points', bridge.view(e.view));
        },
        'connection:changed': function (e) {
          bridge.send(entry, 'connection', { online: e.online });
        },
        'queue:changed': function (e) {
          bridge.send(entry, 'queue', { queueSize: e.queueSize });
        },
        'award:sent': function (e) {
          bridge.send(entry, 'sent', bridge.award(e.award));
        },
        'award:rejected': function (e) {
          var rejected = bridge.award(e.deadLetter);
          rejected.status = e.deadLetter.status;
          rejected.message = e.deadLetter.message;
          // The relay's refusal code (budget, once, cooldown, campaign, banned, policy...); '' when the service refused.
          rejected.code = e.deadLetter.code || '';
          bridge.send(entry, 'rejected', rejected);
        },
        'auth:required': function (e) {
          bridge.send(entry, 'auth', { message: String((e.error && e.error.message) || e.error) });
        },
        'storage:degraded': function (e) {
          bridge.send(entry, 'storage', { reason: e.reason });
        },
      };
    },

    // getToken when the config has no tokenUrl: C# is asked (event 'token') and answers with ProvideToken or
    // FailToken. Calls that come while a request is out wait for the same answer.
    askToken: function (entry) {
      return function () {
        return new Promise(function (resolve, reject) {
          entry.tokenWaiters.push({ resolve: resolve, reject: reject });
          if (entry.tokenWaiters.length === 1) QuestPointsBridge.send(entry, 'token', {});
        });
      };
    },

    answerToken: function (handle, settle) {
      var entry = QuestPointsBridge.clients[handle];
      if (!entry) return;
      var waiters = entry.tokenWaiters.splice(0, entry.tokenWaiters.length);
      for (var i = 0; i < waiters.length; i++) settle(waiters[i]);
    },
  },

  // int QuestPoints_Create(string configJson, EventCallback callback): a handle (> 0), or 0 when the SDK refused the
  // config or is missing (QuestPoints_LastError says why).
  QuestPoints_Create__deps: ['$QuestPointsBridge'],
  QuestPoints_Create: function (configJson, callback) {
    var bridge = QuestPointsBridge;
    try {
      var sdk = bridge.sdk();
      if (!sdk) throw { code: 'config', message: 'window.QuestPoints is missing: QuestPoints.jspre was not included in the build' };
      var config = JSON.parse(UTF8ToString(configJson));
      var handle = bridge.nextHandle++;
      var entry = { handle: handle, callback: callback, closed: false, tokenWaiters: [], client: null, listeners: null, hud: null };
      var options = { relayUrl: config.relayUrl || '/api', getToken: config.tokenUrl ? sdk.tokenFrom(config.tokenUrl) : bridge.askToken(entry) };
      var names = ['questId', 'serviceUserId', 'storageName'];
      for (var i = 0; i < names.length; i++) if (config[names[i]]) options[names[i]] = config[names[i]];
      if (config.historyLimit > 0) options.historyLimit = config.historyLimit;
      entry.client = sdk.createQuestPoints(options);
      // The SDK's HUD over the game's canvas: the total and a toast per award, with no UI code in C#.
      if (config.hud) {
        var canvas = typeof Module !== 'undefined' && Module.canvas;
        var hudOptions = { parent: (canvas && canvas.parentElement) || document.body };
        if (config.hudPosition) hudOptions.position = config.hudPosition;
        entry.hud = sdk.attachHud(entry.client, hudOptions);
      }
      entry.listeners = bridge.listeners(entry);
      for (var name in entry.listeners) entry.client.on(name, entry.listeners[name]);
      bridge.clients[handle] = entry;
      // What holds now, once C# has subscribed (the caller's frame ends before promise callbacks run).
      Promise.resolve().then(function () {
        bridge.send(entry, 'connection', { online: entry.client.getSnapshot().online });
        bridge.send(entry, 'points', bridge.view(entry.client.viewPoints()));
      });
      return handle;
    } catch (error) {
      bridge.remember(error);
      return 0;
    }
  },

  // string QuestPoints_Award(int handle, double points, string eventName, string description): the award's
  // idempotency key, or null when the SDK refused it (QuestPoints_LastError says why).
  QuestPoints_Award__deps: ['$QuestPointsBridge'],
  QuestPoints_Award: function (handle, points, eventName, description) {
    var bridge = QuestPointsBridge;
    var entry = bridge.clients[handle];
    if (!entry) {
      bridge.remember({ code: 'closed', message: 'this QuestPoints was disposed' });
      return 0;
    }
    try {
      var input = { eventPoints: points };
      var name = bridge.optional(eventName);
      var text = bridge.optional(description);
      if (name !== undefined) input.eventName = name;
      if (text !== undefined) input.eventDescription = text;
      return bridge.allocate(entry.client.award(input).idempotencyKey);
    } catch (error) {
      bridge.remember(error);
      return 0;
    }
  },

  // string QuestPoints_View(int handle): the client's own PointsView now, as JSON (null after Dispose).
  QuestPoints_View__deps: ['$QuestPointsBridge'],
  QuestPoints_View: function (handle) {
    var entry = QuestPointsBridge.clients[handle];
    return entry ? QuestPointsBridge.allocate(JSON.stringify(QuestPointsBridge.view(entry.client.viewPoints()))) : 0;
  },

  // void QuestPoints_Flush(int handle): sends what is queued now, without waiting for the backoff.
  QuestPoints_Flush__deps: ['$QuestPointsBridge'],
  QuestPoints_Flush: function (handle) {
    var entry = QuestPointsBridge.clients[handle];
    if (entry) entry.client.flush()['catch'](function () {});
  },

  // void QuestPoints_ProvideToken(int handle, string token): the answer to a 'token' event.
  QuestPoints_ProvideToken__deps: ['$QuestPointsBridge'],
  QuestPoints_ProvideToken: function (handle, token) {
    var text = UTF8ToString(token);
    QuestPointsBridge.answerToken(handle, function (waiter) {
      waiter.resolve(text);
    });
  },

  // void QuestPoints_FailToken(int handle, string message): no token (the player is not signed in): sending pauses
  // and an 'auth' event follows.
  QuestPoints_FailToken__deps: ['$QuestPointsBridge'],
  QuestPoints_FailToken: function (handle, message) {
    var error = new Error(UTF8ToString(message) || 'no token');
    QuestPointsBridge.answerToken(handle, function (waiter) {
      waiter.reject(error);
    });
  },

  // void QuestPoints_Dispose(int handle): no more events; awards still queued stay in IndexedDB for the next page.
  QuestPoints_Dispose__deps: ['$QuestPointsBridge'],
  QuestPoints_Dispose: function (handle) {
    var bridge = QuestPointsBridge;
    var entry = bridge.clients[handle];
    if (!entry) return;
    delete bridge.clients[handle];
    entry.closed = true;
    for (var name in entry.listeners) entry.client.off(name, entry.listeners[name]);
    var waiters = entry.tokenWaiters.splice(0, entry.tokenWaiters.length);
    for (var i = 0; i < waiters.length; i++) waiters[i].reject(new Error('disposed'));
    if (entry.hud) entry.hud.remove();
    entry.client.close()['catch'](function () {});
  },

  // string QuestPoints_LastError(): the last refusal of Create or Award, as JSON { code, message, field }.
  QuestPoints_LastError__deps: ['$QuestPointsBridge'],
  QuestPoints_LastError: function () {
    return QuestPointsBridge.allocate(QuestPointsBridge.lastError);
  },
};

mergeInto(LibraryManager.library, QuestPointsLibrary);
