"""Inventory: sources (host lists, INI, YAML, directories, scripts, plugins) read into an ``InventoryData``."""
