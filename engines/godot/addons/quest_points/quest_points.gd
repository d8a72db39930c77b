extends Node
## Quest points for a Godot 4 web export (the QuestPoints autoload). It drives the quest-points SDK
## in the page through JavaScriptBridge: start() once with the relay and the player, award() where
## the game awards, and the signals tell the game what the SDK knows. Awards are queued in the
## browser's IndexedDB and delivered exactly once, offline included. Off the web (the editor,
## desktop, mobile) or in a web export built without the JavaScript bridge (javascript_eval=no), it
## says so once with push_warning and does nothing else: award() returns "".

## The live total changed: total is confirmed + sent + pending; view is the whole view (history
## entries included).
signal points_changed(total: float, view: Dictionary)
## The connection to the relay went down (false) or came back (true).
signal connection_changed(online: bool)
## An award was queued (it is in the outbox, sent in the background).
signal award_queued(key: String, points: float)
## The service acknowledged an award.
signal award_sent(key: String)
## An award was refused for good (a dead letter): the relay's status and message (for logs: it may
## name the rule and its numbers), and its machine-readable code ("budget", "once", "cooldown",
## "campaign", "banned", "policy"...; "" when the service refused). Word it for the player by the
## code, never by the message.
signal award_rejected(key: String, status: int, message: String, code: String)
## The token was refused or could not be had: the player must sign in again.
signal auth_required(message: String)
## Without a token_url, the SDK asks the game for a token: answer with provide_token().
signal token_needed

const WEB_DIR := "res://addons/quest_points/web/"
const SCRIPTS := ["quest-points.global.js", "quest_points_godot.js"]

## True once start() succeeded, until close().
var started := false

var _unavailable_reason := ""
# Untyped on purpose: the JavaScriptBridge singleton (reached by name, so a build without the class
# still parses) and JavaScriptObject proxies are called dynamically.
var _js = null
var _bridge = null
## The callback JavaScript calls with every event. Kept here: a callback that is not referenced is
## freed, and the SDK would then call a dead function.
var _on_event_callback = null


## Starts the SDK. options: relay_url, quest_id, service_user_id; token_url (a same-origin URL
## answering JSON { "token": ... }) or nothing (then token_needed asks the game); storage_name; hud
## (false, or a Dictionary with position, history, toasts, toast_ms, canvas). Returns false, having
## said why, when it cannot run.
func start(options: Dictionary) -> bool:
	if not _load_bridge():
		return false
	close()
	var js_options := {
		"relayUrl": options.get("relay_url", "/api"),
		"questId": options.get("quest_id", ""),
		"serviceUserId": options.get("service_user_id", ""),
	}
	if options.has("token_url"):
		js_options["tokenUrl"] = options["token_url"]
	if options.has("storage_name"):
		js_options["storageName"] = options["storage_name"]
	var hud = options.get("hud", {})
	if hud is Dictionary:
		js_options["hud"] = {
			"canvas": hud.get("canvas", "#canvas"),
			"position": hud.get("position", "top-right"),
			"history": hud.get("history", 0),
			"toasts": hud.get("toasts", 3),
			"toastMs": hud.get("toast_ms", 4000),
		}
	else:
		js_options["hud"] = false
	_on_event_callback = _js.create_callback(_on_event)
	var error: String = str(_bridge.start(JSON.stringify(js_options), _on_event_callback))
	if error != "":
		push_error("QuestPoints: start failed: %s" % error)
		_on_event_callback = null
		return false
	started = true
	return true


## Queues an award and returns its idempotency key, or "" when it was refused (the error says which
## field and rule) or the addon cannot run here.
func award(points: float, event_name := "", description := "") -> String:
	if not started:
		# Off the web this warns once (never again); on the web, award() before start() is a bug.
		if _load_bridge():
			push_error("QuestPoints: award() before start()")
		return ""
	var answer = JSON.parse_string(str(_bridge.award(points, event_name, description)))
	if not answer is Dictionary or answer.has("error"):
		var reason = answer.get("error", "no answer") if answer is Dictionary else "no answer"
		push_error("QuestPoints: award refused: %s" % reason)
		return ""
	return answer["key"]


## Answers token_needed: the player's token from the game's login, or "" when the player is not
## signed in.
func provide_token(token: String) -> void:
	if started:
		_bridge.provideToken(token)


## The live view now: total, confirmed, sent, pending, stale, history (entries with points, event,
## description, state, key). Empty when not started.
func get_view() -> Dictionary:
	return _parse(_bridge.view()) if started else {}


## The SDK's state now: online, queueSize, deadLetterCount, authRequired, storage. Empty when not
## started.
func get_snapshot() -> Dictionary:
	return _parse(_bridge.snapshot()) if started else {}


## Sends what is queued now (it is sent in the background anyway).
func flush() -> void:
	if started:
		_bridge.flush()


## Stops the SDK (queued awards stay in the browser for the next start) and removes the HUD.
func close() -> void:
	if started:
		_bridge.close()
	started = false
	_on_event_callback = null


func _exit_tree() -> void:
	close()


func _load_bridge() -> bool:
	if _bridge != null:
		return true
	if _unavailable_reason != "":
		return false
	var reason := _why_no_bridge()
	if reason == "":
		reason = _load_scripts()
	if reason != "":
		return _unavailable(reason)
	return true


# Why the JavaScript bridge cannot be had here, or "" (then _js is the JavaScriptBridge singleton).
func _why_no_bridge() -> String:
	if not OS.has_feature("web"):
		return "this is not a web export"
	if not ClassDB.class_exists("JavaScriptBridge") or not Engine.has_singleton("JavaScriptBridge"):
		return "this build has no JavaScriptBridge"
	_js = Engine.get_singleton("JavaScriptBridge")
	if str(_js.eval("typeof window", true)) != "object":
		return "this web export was built without the JavaScript bridge (javascript_eval=no)"
	return ""


# Evaluates the SDK and the bridge in the page and keeps the bridge's interface, or says why not.
func _load_scripts() -> String:
	for file in SCRIPTS:
		var source := FileAccess.get_file_as_string(WEB_DIR + file)
		if source.is_empty():
			return "%s is not in the export (is the addon enabled?)" % file
		_js.eval(source, true)
	_bridge = _js.get_interface("QuestPointsGodot")
	if _bridge == null:
		return "the bridge did not load"
	return ""


func _unavailable(reason: String) -> bool:
	_unavailable_reason = reason
	push_warning("QuestPoints: disabled: %s. Points are awarded only in a web export." % reason)
	return false


func _parse(json) -> Dictionary:
	var value = JSON.parse_string(str(json))
	return value if value is Dictionary else {}


## JavaScriptBridge calls this with ONE Array holding the JavaScript arguments: [name, json].
func _on_event(args: Array) -> void:
	if args.size() < 2:
		return
	var payload = JSON.parse_string(str(args[1]))
	if not payload is Dictionary:
		return
	match str(args[0]):
		"points:changed":
			points_changed.emit(float(payload["total"]), payload)
		"connection:changed":
			connection_changed.emit(bool(payload["online"]))
		"award:queued":
			award_queued.emit(str(payload["key"]), float(payload["points"]))
		"award:sent":
			award_sent.emit(str(payload["key"]))
		"award:rejected":
			var key := str(payload["key"])
			var code := str(payload.get("code", ""))
			award_rejected.emit(key, int(payload["status"]), str(payload["message"]), code)
		"auth:required":
			auth_required.emit(str(payload["message"]))
		"token:needed":
			token_needed.emit()
