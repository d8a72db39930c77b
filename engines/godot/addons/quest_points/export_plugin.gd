@tool
extends EditorExportPlugin
## Adds the SDK (the script-tag build) and the bridge to Web exports, where the autoload reads them
## with FileAccess and evaluates them through JavaScriptBridge. Other platforms get nothing: the
## autoload says so once there.

const FILES := [
	"res://addons/quest_points/web/quest-points.global.js",
	"res://addons/quest_points/web/quest_points_godot.js",
]


func _get_name() -> String:
	return "QuestPoints"


func _export_begin(
	features: PackedStringArray, _is_debug: bool, _path: String, _flags: int
) -> void:
	if not features.has("web"):
		return
	for file in FILES:
		var bytes := FileAccess.get_file_as_bytes(file)
		if bytes.is_empty():
			push_error("QuestPoints: %s is missing from the addon; reinstall it" % file)
			continue
		add_file(file, bytes, false)
