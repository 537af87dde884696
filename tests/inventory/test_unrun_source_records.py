"""What a source left unread on purpose may still change (engine.inventory.unrun), as the
inventory records it for the variable model and the plan."""

from __future__ import annotations

from pathlib import Path

from engine.inventory.manager import load_inventory


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def test_constructed_may_change_the_hosts_read_before_it(tmp_path: Path) -> None:
    _write(tmp_path / "inv" / "1-hosts.yml", "all:\n  hosts:\n    a: {dc: east}\n    b: {}\n")
    _write(tmp_path / "inv" / "2-constructed.yml",
           "plugin: ansible.builtin.constructed\ncompose:\n  weight: 1\n  owner: lookup('env', 'USER')\n"
           "groups:\n  big: true\n"
           "keyed_groups:\n  - key: dc\n    prefix: dc\n    parent_group: dcs\n"
           "  - key: dc\n    prefix: site\n    separator: '-'\n")
    _write(tmp_path / "inv" / "3-more.yml", "all:\n  hosts:\n    c: {}\n")
    inventory = load_inventory([str(tmp_path / "inv")])
    [unrun] = inventory.unrun
    assert unrun.plugin == "constructed" and not unrun.any_name
    assert unrun.compose == {"weight", "owner"}
    assert unrun.hosts == {"a", "b"}  # not c, read after it
    assert "it uses a lookup (lookup), which only the run runs" in inventory.notes[0]
    assert [unrun.may_fill(group) for group in ("big", "dcs", "dc_east", "site_west", "web")] == \
        [True, True, True, True, False]
    assert unrun.may_change("a") and not unrun.may_change("c")


def test_a_script_may_change_anything(tmp_path: Path) -> None:
    _write(tmp_path / "inv" / "1-hosts.ini", "[web]\nw1\n")
    _write(tmp_path / "inv" / "2-cmdb.py", "#!/bin/sh\necho '{}'\n", 0o755)
    inventory = load_inventory([str(tmp_path / "inv")])
    [unrun] = inventory.unrun
    assert unrun.any_name and unrun.may_fill("anything") and unrun.may_change("w1") and unrun.may_change("new")
    assert "(not run here)" in unrun.reason


def test_a_source_that_is_run_is_not_recorded(tmp_path: Path) -> None:
    _write(tmp_path / "inv" / "1-hosts.yml", "all:\n  hosts:\n    a: {dc: east}\n")
    _write(tmp_path / "inv" / "2-constructed.yml", "plugin: ansible.builtin.constructed\ngroups:\n  big: true\n")
    assert load_inventory([str(tmp_path / "inv")], dynamic=True).unrun == []
