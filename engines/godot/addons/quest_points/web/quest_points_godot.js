/*! quest-points Godot bridge | MIT */
// The JavaScript side of the Godot addon: window.QuestPointsGodot, reached from GDScript with
// JavaScriptBridge.get_interface("QuestPointsGodot"), on top of window.QuestPoints (the script-tag build, evaluated
// first). It follows JavaScriptBridge's conventions so nothing is lost on the way: arguments from GDScript are
// numbers and strings; everything handed back is a string (JSON for structured data) or a number, never a JS object,
// which GDScript would only get as an opaque JavaScriptObject proxy; the GDScript callback (one function,
// onEvent(name, json)) receives its arguments as one Array there. The callbacks are called only between start()
// and close(), so a collected callback is never called. Plain ES2017, no modules: it is evaluated as a script.
(function () {
  'use strict';

  /** The SDK events forwarded to GDScript, each as (name, JSON of a flat payload). */
  var FORWARDED = {
    'points:changed': function (e, own) {
      var v = e.view;
      if (!own(v)) return undefined;
      return {
        total: v.totalPoints,
        confirmed: v.confirmedPoints,
        sent: v.sentPoints,
        pending: v.pendingPoints,
        stale: v.stale,
        history: v.history.map(function (h) {
          return {
            points: h.eventPoints,
            event: h.eventName || '',
            description: h.eventDescription || '',
            state: h.state,
            key: h.idempotencyKey || '',
          };
        }),
      };
    },
    'connection:changed': function (e) {
      return { online: e.online };
    },
    'award:queued': function (e, own) {
      return own(e.award) ? { key: e.award.idempotencyKey, points: e.award.eventPoints, event: e.award.eventName || '' } : undefined;
    },
    'award:sent': function (e, own) {
      return own(e.award) ? { key: e.award.idempotencyKey } : undefined;
    },
    'award:rejected': function (e, own) {
      var d = e.deadLetter;
      // code: the relay's refusal code (budget, once, cooldown, campaign, banned, policy...); '' when the service refused.
      return own(d) ? { key: d.idempotencyKey, points: d.eventPoints, status: d.status, message: d.message, code: d.code || '' } : undefined;
    },
    'auth:required': function (e) {
      return { message: e.error && e.error.message ? String(e.error.message) : String(e.error) };
    },
  };

  var state = { client: null, hud: null, onEvent: null, listeners: [], waiting: [] };

  function send(name, payload) {
    if (state.onEvent) state.onEvent(name, JSON.stringify(payload));
  }

  function errorText(error) {
    return error && error.message ? String(error.message) : String(error);
  }

  /** getToken when the game hands tokens in: asks GDScript ('token:needed') and waits for provideToken(). */
  function tokenFromGame() {
    return new Promise(function (resolve, reject) {
      state.waiting.push({ resolve: resolve, reject: reject });
      if (state.waiting.length === 1) send('token:needed', {});
    });
  }

  function placeHud(client, hud) {
    var canvas = document.querySelector(hud.canvas || '#canvas');
    var parent = (canvas && canvas.parentElement) || document.body;
    // The element fills its positioned parent: Godot's shell puts the canvas straight in <body>.
    if (getComputedStyle(parent).position === 'static') parent.style.position = 'relative';
    var options = { parent: parent };
    ['position', 'history', 'toasts', 'toastMs'].forEach(function (name) {
      if (hud[name] !== undefined) options[name] = hud[name];
    });
    return window.QuestPoints.attachHud(client, options);
  }

  /**
   * Starts the client. optionsJson: { relayUrl, questId, serviceUserId, tokenUrl?, storageName?, hud?: false |
   * { canvas?, position?, history?, toasts?, toastMs? } }; without tokenUrl the token comes from the game
   * ('token:needed', then provideToken). onEvent(name, json) is the GDScript callback. Returns '' or the error's text.
   */
  function start(optionsJson, onEvent) {
    try {
      if (!window.QuestPoints) return 'window.QuestPoints is missing: the script-tag build was not loaded';
      var o = JSON.parse(String(optionsJson));
      close();
      var options = {
        relayUrl: o.relayUrl,
        getToken: o.tokenUrl ? window.QuestPoints.tokenFrom(o.tokenUrl) : tokenFromGame,
        questId: o.questId,
        serviceUserId: o.serviceUserId,
      };
      if (o.storageName) options.storageName = o.storageName;
      var client = window.QuestPoints.createQuestPoints(options);
      var ownView = client.viewPoints();
      var own = function (pair) {
        return pair.questId === ownView.questId && pair.serviceUserId === ownView.serviceUserId;
      };
      state.client = client;
      state.onEvent = typeof onEvent === 'function' ? onEvent : null;
      Object.keys(FORWARDED).forEach(function (name) {
        var listener = function (e) {
          var payload = FORWARDED[name](e, own);
          if (payload !== undefined) send(name, payload);
        };
        client.on(name, listener);
        state.listeners.push([name, listener]);
      });
      if (o.hud !== false) state.hud = placeHud(client, o.hud || {});
      return '';
    } catch (error) {
      close();
      return errorText(error);
    }
  }

  /** Queues an award; returns JSON { key } or { error } (the SDK's message, naming the field and rule). */
  function award(points, eventName, eventDescription) {
    if (!state.client) return JSON.stringify({ error: 'QuestPointsGodot.start() was not called (or failed)' });
    try {
      var input = { eventPoints: Number(points) };
      if (eventName) input.eventName = String(eventName);
      if (eventDescription) input.eventDescription = String(eventDescription);
      return JSON.stringify({ key: state.client.award(input).idempotencyKey });
    } catch (error) {
      return JSON.stringify({ error: errorText(error) });
    }
  }

  /** The token the game fetched after 'token:needed' (an empty one refuses: the player is not signed in). */
  function provideToken(token) {
    var waiting = state.waiting.splice(0);
    waiting.forEach(function (w) {
      if (token) w.resolve(String(token));
      else w.reject(new Error('the game has no token for this player'));
    });
  }

  /** The live view now, as JSON (the same shape as 'points:changed'); '' before start(). */
  function view() {
    if (!state.client) return '';
    return JSON.stringify(FORWARDED['points:changed']({ view: state.client.viewPoints() }, function () {
      return true;
    }));
  }

  /** The snapshot now, as JSON { online, queueSize, deadLetterCount, authRequired, storage }; '' before start(). */
  function snapshot() {
    if (!state.client) return '';
    var s = state.client.getSnapshot();
    return JSON.stringify({ online: s.online, queueSize: s.queueSize, deadLetterCount: s.deadLetterCount, authRequired: s.authRequired, storage: s.storage });
  }

  /** Sends what is queued now. */
  function flush() {
    if (state.client) state.client.flush().catch(function () {});
  }

  /** Stops the client (queued awards stay in IndexedDB), removes the HUD, and never calls the callback again. */
  function close() {
    var client = state.client;
    state.listeners.splice(0).forEach(function (l) {
      if (client) client.off(l[0], l[1]);
    });
    if (state.hud) {
      state.hud.client = undefined;
      state.hud.remove();
    }
    provideToken('');
    state.client = null;
    state.hud = null;
    state.onEvent = null;
    if (client) client.close().catch(function () {});
  }

  window.QuestPointsGodot = {
    start: start,
    award: award,
    provideToken: provideToken,
    view: view,
    snapshot: snapshot,
    flush: flush,
    close: close,
    /** The number of SDK listeners the bridge holds (0 after close): for tests. */
    listenerCount: function () {
      return state.listeners.length;
    },
  };
})();
