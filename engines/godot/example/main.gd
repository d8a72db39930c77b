extends Node2D
## A Godot 4 scene using the QuestPoints autoload: start once, award on a click, show the total from
## the signal. The scene: a Node2D with this script and a Label child named Total.

@export var relay_url := "/api"  ## your relay, on the page's origin
@export var token_url := "/login/qp-token"  ## your login route, answering JSON { "token": "..." }
@export var quest_id := "summer"
@export var service_user_id := "dev-player"  ## the signed-in player

@onready var total_label: Label = $Total


func _ready() -> void:
	QuestPoints.points_changed.connect(_on_points_changed)
	QuestPoints.connection_changed.connect(_on_connection_changed)
	QuestPoints.award_rejected.connect(_on_award_rejected)
	QuestPoints.auth_required.connect(_on_auth_required)
	# false off the web (the editor, desktop): QuestPoints said why, once; award() does nothing.
	QuestPoints.start({
		"relay_url": relay_url,
		"token_url": token_url,
		"quest_id": quest_id,
		"service_user_id": service_user_id,
		"hud": {"position": "top-right", "history": 3},
	})


func _unhandled_input(event: InputEvent) -> void:
	if event is InputEventMouseButton and event.pressed:
		var key := QuestPoints.award(10, "coin", "Coin collected")
		if key == "":
			return  # refused (the error names the field) or not on the web
		print("queued ", key)


func _on_points_changed(total: float, _view: Dictionary) -> void:
	total_label.text = "Points: %d" % total


func _on_connection_changed(online: bool) -> void:
	total_label.modulate = Color.WHITE if online else Color(1, 1, 1, 0.6)


func _on_award_rejected(key: String, status: int, message: String, code: String) -> void:
	# The message is for the logs (it may name the rule and its numbers); a player's words go by
	# the code, as the HUD's do.
	push_warning("award %s refused (%d %s): %s" % [key, status, code, message])


func _on_auth_required(_message: String) -> void:
	print("the player must sign in again")
