@tool
extends EditorPlugin
## Enabling the addon registers the QuestPoints autoload; its export plugin puts the two JavaScript
## files of web/ into every Web export's pack (Godot exports only the resources it knows, and .js is
## not one).

const AUTOLOAD := "QuestPoints"
const AUTOLOAD_PATH := "res://addons/quest_points/quest_points.gd"

var _export_plugin: EditorExportPlugin


func _enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD, AUTOLOAD_PATH)


func _disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD)


func _enter_tree() -> void:
	_export_plugin = preload("res://addons/quest_points/export_plugin.gd").new()
	add_export_plugin(_export_plugin)


func _exit_tree() -> void:
	remove_export_plugin(_export_plugin)
	_export_plugin = null
