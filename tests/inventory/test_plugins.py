"""Plugin names in ``auto`` configurations, TOML inventories and range host lists, offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import InventorySettings
from engine.inventory.manager import BUILTIN_PLUGINS, load_inventory
from engine.inventory.plugins import find_plugin


def _settings_with_collections(tmp_path: Path) -> InventorySettings:
    plugin_dir = tmp_path / "ansible_collections" / "acme" / "cloud" / "plugins" / "inventory"
    plugin_dir.mkdir(parents=True)
    (plugin_dir / "servers.py").write_text("raise SystemExit('never imported')\n")
    return InventorySettings(collections_path=[str(tmp_path)], collections_scan_sys_path=False)


@pytest.mark.parametrize(("name", "kind", "resolved", "warning"), [
    ("yaml", "builtin", "yaml", ""),
    ("ansible.builtin.constructed", "builtin", "constructed", ""),
    ("ansible.legacy.ini", "builtin", "ini", ""),
    ("ansible.builtin.nosuch", "unknown", "ansible.builtin.nosuch", ""),
    ("nosuch", "unknown", "nosuch", ""),
    ("acme.cloud.servers", "installed", "acme.cloud.servers", ""),
    ("acme.cloud.other", "unknown", "acme.cloud.other", ""),
    ("acme.nosuch.servers", "unknown", "acme.nosuch.servers",
     "Error loading plugin 'acme.nosuch.servers': No module named 'ansible_collections.acme.nosuch'"),
    ("nosuch.cloud.servers", "unknown", "nosuch.cloud.servers",
     "Error loading plugin 'nosuch.cloud.servers': No module named 'ansible_collections.nosuch'"),
])
def test_find_plugin_reads_directories_only(tmp_path: Path, name: str, kind: str, resolved: str,
                                            warning: str) -> None:
    plugin = find_plugin(name, BUILTIN_PLUGINS, _settings_with_collections(tmp_path))
    assert (plugin.kind, plugin.name, plugin.load_warning) == (kind, resolved, warning)


def test_installed_collection_plugin_is_not_run_without_permission(tmp_path: Path) -> None:
    settings = _settings_with_collections(tmp_path)
    config = tmp_path / "servers.yml"
    config.write_text("plugin: acme.cloud.servers\n")
    inventory = load_inventory([str(config)], dynamic=False, settings=settings)
    assert not inventory.failures and not any(w.startswith("Unable to parse") for w in inventory.warnings)
    [note] = inventory.notes
    assert note.startswith(f"dynamic inventory: {config} not run")
    assert "inventory plugin 'acme.cloud.servers'" in note and "partial" in note


def test_toml_inventory_groups_hosts_and_types(tmp_path: Path) -> None:
    source = tmp_path / "hosts.toml"
    source.write_text('[web]\nchildren = ["app"]\nvars = { port = 80 }\n[web.hosts]\n"w[1:2]:2222" = { on = true }\n'
                      "[app.hosts]\na1 = {}\n")
    data = load_inventory([str(source)]).data
    assert [h.name for h in data.groups["web"].get_hosts()] == ["w1", "w2", "a1"]
    assert data.hosts["w1"].vars["ansible_port"] == 2222
    assert data.hosts["w2"].vars["on"] is True
    assert data.groups["web"].vars == {"port": 80}


def test_advanced_host_list_only_when_enabled() -> None:
    plain = load_inventory(["web[1:2],db"]).data
    assert sorted(plain.hosts) == ["db", "web[1:2]"]
    settings = InventorySettings(enabled_plugins=["advanced_host_list"])
    expanded = load_inventory(["web[1:2],db"], settings=settings).data
    assert sorted(expanded.hosts) == ["db", "web1", "web2"]
