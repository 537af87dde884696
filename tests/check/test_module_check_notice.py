"""Without ansible-core, PLS113 cannot tell a misspelt module from a real one: every output format
says so, and ``--require-module-check`` (or the setting) makes it an error for CI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.plugins import names as plugin_names

SITE = "- hosts: localhost\n  tasks:\n    - nosuch_module: {}\n"


@pytest.fixture
def no_ansible_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(plugin_names, "find_ansible_core", lambda: None)
    monkeypatch.setattr(plugin_names.plugin_names_for, "__defaults__", (plugin_names.find_ansible_core,))
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "site.yml").write_text(SITE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_format_says_module_names_were_not_checked(no_ansible_core: Path, cli) -> None:
    rc, out, _err = cli("check")
    assert rc == 0
    assert out.splitlines()[0].startswith("note: module names were not checked (PLS113")
    data = json.loads(cli("check", "--format", "json")[1])
    assert data["summary"]["module_names_checked"] is False
    assert len(data["notices"]) == 1 and "no ansible-core was found" in data["notices"][0]
    sarif = json.loads(cli("check", "--format", "sarif")[1])
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [note["level"] for note in notes] == ["warning"]
    assert cli("check", "--format", "github")[1].startswith("::notice title=playbook-ls::module names were not")
    assert "note: module names were not checked" in cli("check", "--statistics")[2]


def test_require_module_check_fails_the_run(no_ansible_core: Path, cli) -> None:
    rc, _out, err = cli("check", "--require-module-check")
    assert rc == 2 and "module names could not be checked" in err
    (no_ansible_core / "pyproject.toml").write_text("[tool.playbook-ls]\nrequire-module-check = true\n")
    assert cli("check")[0] == 2


def test_with_ansible_core_nothing_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    pytest.importorskip("ansible")
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "site.yml").write_text(SITE)
    monkeypatch.chdir(tmp_path)
    rc, out, _err = cli("check", "--require-module-check", "--format", "json")
    data = json.loads(out)
    assert rc == 1 and data["notices"] == [] and data["summary"]["module_names_checked"] is True
    assert [f["code"] for f in data["findings"]] == ["PLS113"]
