"""A host's twin token (engine.variables.inventory_twins) takes from its inventory levels the key of
its groups' levels and the names its own levels set: engine.variables.sources.inventory_part tells
them without building the host's levels, and tells what those levels tell, whatever the host has of
its own (variables on its line, host_vars files beside the inventory or the playbook, a directory of
them), in whichever order its groups are listed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.inventory.manager import load_inventory
from engine.variables import sources
from engine.variables.sources import inventory_layers, inventory_part


def _tree(root: Path) -> None:
    (root / "inv").mkdir()
    (root / "inv" / "hosts.ini").write_text(
        "[rack_a]\nw6\n\n[web]\nw1\nw2 port=81\nw3\nw4\nW5\nw6\n\n[db]\nd1\nw4\nw3\n\n"
        "[rack_a]\nw3\nw1\n\n[rack_b]\nw4\n\n[rack_z]\nw7\n\n[web]\nw7\n\n"
        "[east:children]\nweb\n\n[db:vars]\ntier=db\n")
    (root / "inv" / "group_vars").mkdir()
    (root / "inv" / "group_vars" / "web.yml").write_text("tier: web\n")
    (root / "inv" / "host_vars").mkdir()
    (root / "inv" / "host_vars" / "w3.yml").write_text("weight: 3\n")
    (root / "inv" / "host_vars" / "d1").mkdir()
    (root / "inv" / "host_vars" / "d1" / "a.yml").write_text("disk: ssd\n")
    (root / "inv" / "host_vars" / "d1" / "b.json").write_text('{"raid": 1}\n')
    (root / "inv" / "host_vars" / "W5.YML").write_text("other_case: 1\n")
    (root / "inv" / "host_vars" / "w1.yml").write_text("")  # empty: no level
    (root / "play").mkdir()
    (root / "play" / "host_vars").mkdir()
    (root / "play" / "host_vars" / "w4.yaml").write_text("from_play: yes\n")
    (root / "play" / "group_vars").mkdir()
    (root / "play" / "group_vars" / "rack_b.yml").write_text("rack: b\n")


@pytest.mark.parametrize("first", ["part", "layers"])
def test_the_part_is_what_the_levels_tell(tmp_path: Path, first: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    # a host_vars file encrypted whole, where ansible has vault secrets: a level that may set any name
    (tmp_path / "inv" / "host_vars" / "w7.yml").write_text("$ANSIBLE_VAULT;1.1;AES256\n6162636465666768\n")
    (tmp_path / "secret.txt").write_text("not read\n")
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", str(tmp_path / "secret.txt"))
    for playbook_dir in (str(tmp_path / "play"), str(tmp_path)):
        inventory = load_inventory([str(tmp_path / "inv" / "hosts.ini")])
        manager = SimpleNamespace(inventory=inventory)
        found = {}
        for host in inventory.data.hosts.values():
            if first == "part":
                part = inventory_part(manager, host, playbook_dir)
            layers = inventory_layers(manager, host, playbook_dir)
            if first == "layers":
                part = inventory_part(manager, host, playbook_dir)
            own = frozenset(name for layer in layers[layers.shared_count:] for name in layer.values)
            assert part == (layers.groups_key, own | set(layers.any_names)), host.name
            found[host.name] = part
        assert found["w3"][1] >= {"weight", "inventory_hostname", "group_names"}
        assert found["d1"][1] >= {"disk", "raid"} and "port" in found["w2"][1]
        assert "other_case" not in found["W5"][1]  # W5.YML is not W5.yml on a disk that tells case
        assert ("from_play" in found["w4"][1]) == (playbook_dir == str(tmp_path / "play"))
        assert found["w1"] == found["w6"] != found["w3"]  # the same groups, listed in another order
        assert [mark[:2] for mark in found["w7"][1] if isinstance(mark, tuple)] == [("any name", "host 'w7'")]


def test_a_twin_part_builds_no_level_of_the_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its groups' levels are kept, a host's part is told without a level of its own; so is that
    of a host in one more group that gives no level (a rack's, without variables or files)."""
    _tree(tmp_path)
    inventory = load_inventory([str(tmp_path / "inv" / "hosts.ini")])
    manager = SimpleNamespace(inventory=inventory)
    hosts = inventory.data.hosts
    inventory_part(manager, hosts["w1"], str(tmp_path))
    made: list[str] = []
    original = sources.make_layer
    monkeypatch.setattr(sources, "make_layer", lambda level, label, *args, **kwargs:
                        made.append(label) or original(level, label, *args, **kwargs))
    assert inventory_part(manager, hosts["w6"], str(tmp_path)) == inventory_part(manager, hosts["w1"], str(tmp_path))
    assert inventory_part(manager, hosts["w7"], str(tmp_path)) == inventory_part(manager, hosts["w1"], str(tmp_path))
    assert made == []
