"""Behaviour the differential cases cannot show: scripts only run on request, errors carry positions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.inventory.ini import IniError, parse_ini
from engine.inventory.manager import load_inventory
from engine.inventory.script import ScriptError, ScriptRunner, parse_script
from playbook_ls.cli.main import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "inventory.py"
    path.write_text(f"#!/usr/bin/env python3\nimport json, sys, pathlib\n{body}")
    path.chmod(0o755)
    return str(path)


def test_scripts_do_not_run_unless_allowed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = _script(tmp_path, f"pathlib.Path({str(marker)!r}).write_text('x')\nprint(json.dumps({{'web': ['w1']}}))\n")
    inventory = load_inventory([script])
    assert not marker.exists()
    assert inventory.notes == [f"dynamic inventory: {script} not run"]
    assert list(inventory.data.hosts) == []
    allowed = load_inventory([script], dynamic=True)
    assert marker.exists()
    assert list(allowed.data.hosts) == ["w1"]


def test_script_output_is_cached_for_the_run(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    script = _script(tmp_path, f"p = pathlib.Path({str(counter)!r})\n"
                               "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
                               "print(json.dumps({'g': {'hosts': ['h']}, '_meta': {'hostvars': {}}}))\n")
    runner = ScriptRunner()
    load_inventory([script], dynamic=True, runner=runner)
    load_inventory([script], dynamic=True, runner=runner)
    assert counter.read_text() == "x"


def test_script_timeout_is_reported(tmp_path: Path) -> None:
    script = _script(tmp_path, "import time\ntime.sleep(5)\n")
    from engine.inventory.data import InventoryData

    with pytest.raises(ScriptError, match="did not finish within 0.2 seconds"):
        parse_script(InventoryData(), script, ScriptRunner(timeout=0.2))


def test_ini_error_names_the_line() -> None:
    from engine.inventory.data import InventoryData

    with pytest.raises(IniError) as caught:
        parse_ini(InventoryData(), "[web]\nw1\nw2 novalue\n")
    assert caught.value.line == 3
    assert "Expected key=value host variable assignment, got: novalue" in str(caught.value)


def test_list_hosts_prints_ansible_header(capsys: pytest.CaptureFixture[str]) -> None:
    previous = os.getcwd()
    os.chdir(FIXTURES / "ini_children_vars")
    try:
        assert main(["inventory", "-i", "hosts.ini", "--list-hosts", "prod", "--limit", "!d1"]) == 0
    finally:
        os.chdir(previous)
    assert capsys.readouterr().out == "  hosts (1):\n    w1\n"


def test_conflicting_actions_exit_like_ansible(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inventory", "-i", "a,b", "--list", "--graph"]) == 5
    assert "Conflicting options used" in capsys.readouterr().err


def test_vars_files_are_looked_for_and_read_once_per_entity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As ansible's vars plugin caches them: --list of many hosts asks for each group's files per host."""
    (tmp_path / "hosts.ini").write_text("[web]\nw1\nw2\nw3\n")
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "web.yml").write_text("port: 80\n")
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "host_vars" / "w2.yml").write_text("port: 81\n")
    inventory = load_inventory([str(tmp_path / "hosts.ini")])
    loads: list[str] = []
    original = inventory.cache.load
    monkeypatch.setattr(inventory.cache, "load", lambda path: loads.append(path) or original(path))
    ports = [inventory.host_variables(host)["port"] for host in inventory.data.groups["web"].hosts]
    ports += [inventory.host_variables(host)["port"] for host in inventory.data.groups["web"].hosts]
    assert ports == [80, 81, 80] * 2
    assert sorted(loads) == sorted([str(tmp_path / "group_vars" / "web.yml"), str(tmp_path / "host_vars" / "w2.yml")])


def test_a_missing_or_file_vars_directory_is_told_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source's directory without ``host_vars`` (a fleet's hosts, none with a file) is looked at
    once, not once per host; a ``group_vars`` that is a file is skipped with one warning."""
    (tmp_path / "hosts.ini").write_text("[web]\nw1\nw2\nw3\n")
    (tmp_path / "group_vars").write_text("not a directory\n")
    inventory = load_inventory([str(tmp_path / "hosts.ini")])
    looked: list[str] = []
    original = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda path: looked.append(str(path)) or original(path))
    hosts = inventory.data.groups["web"].hosts
    assert [inventory.host_variables(host).get("port") for host in hosts] == [None] * 3
    files = inventory.vars_files
    assert [files.files_of(host) for host in hosts] == [[]] * 3
    assert looked.count(str(tmp_path / "host_vars")) <= 1
    assert files.warnings == [f"Found group_vars that is not a directory, skipping: {tmp_path / 'group_vars'}"]
