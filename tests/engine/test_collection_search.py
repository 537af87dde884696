"""Where collections are found and how names are looked up in them (engine.plugins.collection_search)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.config import AnsibleConfig
from engine.plugins.collection_search import CollectionFinder, collection_roots, ensure_default, is_fqcr
from playbook_ls.cli.main import main


def _collection(root: Path, name: str, roles: tuple[str, ...] = (), playbooks: tuple[str, ...] = ()) -> Path:
    namespace, collection = name.split(".")
    directory = root / "ansible_collections" / namespace / collection
    for role in roles:
        (directory / "roles" / role / "tasks").mkdir(parents=True)
        (directory / "roles" / role / "tasks" / "main.yml").write_text(f"- name: {role} task\n  debug: msg=x\n")
    for playbook in playbooks:
        target = directory / "playbooks" / playbook
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("- hosts: localhost\n  gather_facts: false\n  roles: [r1]\n")
    return directory


def test_default_collection_and_legacy_are_added_as_ansible_does() -> None:
    assert ensure_default([]) == ()
    assert ensure_default([], "ns.col") == ("ns.col", "ansible.legacy")
    assert ensure_default(["a.b"]) == ("a.b", "ansible.legacy")
    assert ensure_default(["a.b", "ansible.builtin"], "ns.col") == ("ns.col", "a.b", "ansible.builtin")


def test_fully_qualified_names() -> None:
    assert is_fqcr("ns.col.role") and is_fqcr("ns.col.sub.role")
    assert not is_fqcr("role") and not is_fqcr("site.yml") and not is_fqcr("roles/x")


def test_the_first_root_that_has_a_collection_hides_the_others(tmp_path: Path) -> None:
    first = _collection(tmp_path / "a", "ns.col", roles=("only_in_a",))
    _collection(tmp_path / "b", "ns.col", roles=("only_in_b",))
    _collection(tmp_path / "b", "ns.other", roles=("r",))
    finder = CollectionFinder(collection_roots([], [str(tmp_path / "a"), str(tmp_path / "b")], scan_sys_path=False))
    assert finder.collection_dir("ns.col") == str(first)
    assert finder.find_role("only_in_b", ["ns.col"]) is None  # a namespace package: a hides b's copy
    other_role = str(tmp_path / "b/ansible_collections/ns/other/roles/r")
    assert finder.find_role("r", ["ns.col", "ns.other"]) == ("r", other_role, "ns.other")
    assert finder.find_role("ns.other.r", []) is not None
    assert finder.find_role("r", []) is None  # a short name needs a collection list
    assert finder.collection_of(str(first / "roles" / "only_in_a" / "tasks" / "main.yml")) == "ns.col"
    assert finder.collection_of(str(tmp_path / "b/ansible_collections/ns/col/roles/only_in_b")) is None


def test_collection_playbooks_with_and_without_extension(tmp_path: Path) -> None:
    directory = _collection(tmp_path, "ns.col", playbooks=("site.yml", "sub/deep.yaml"))
    finder = CollectionFinder(collection_roots([], [str(tmp_path)], scan_sys_path=False))
    assert finder.find_playbook("ns.col.site") == (str(directory / "playbooks/site.yml"), "ns.col")
    assert finder.find_playbook("ns.col.site.yml") == (str(directory / "playbooks/site.yml"), "ns.col")
    assert finder.find_playbook("ns.col.sub.deep") == (str(directory / "playbooks/sub/deep.yaml"), "ns.col")
    assert finder.find_playbook("ns.col.missing") is None
    assert finder.find_playbook("site.yml") is None


def test_roots_come_from_next_to_the_playbook_the_config_and_sys_path(tmp_path: Path) -> None:
    (tmp_path / "project" / "collections" / "ansible_collections").mkdir(parents=True)
    (tmp_path / "configured" / "ansible_collections").mkdir(parents=True)
    (tmp_path / "site" / "ansible_collections").mkdir(parents=True)
    roots = collection_roots([str(tmp_path / "project")], [str(tmp_path / "configured" / "ansible_collections")],
                             sys_paths=[str(tmp_path / "site"), str(tmp_path / "nothing")])
    assert roots == [str(tmp_path / "project" / "collections"), str(tmp_path / "configured"), str(tmp_path / "site")]
    assert collection_roots([], [], scan_sys_path=False, sys_paths=[str(tmp_path / "site")]) == []


def test_config_reads_collections_path_relative_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSIBLE_COLLECTIONS_PATH", raising=False)
    monkeypatch.delenv("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", raising=False)
    monkeypatch.delenv("ANSIBLE_CONFIG", raising=False)
    (tmp_path / "ansible.cfg").write_text("[defaults]\ncollections_path = ./cols:/abs\n"
                                          "collections_scan_sys_path = no\n")
    config = AnsibleConfig.load(str(tmp_path))
    assert config.collections_path == [str(tmp_path / "cols"), "/abs"]
    assert config.collections_scan_sys_path is False
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", "elsewhere")
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", "True")
    config = AnsibleConfig.load(str(tmp_path))
    assert config.collections_path == [str(tmp_path / "elsewhere")]
    assert config.collections_scan_sys_path is True


def test_a_collection_playbook_named_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    directory = _collection(tmp_path / "cols", "ns.col", roles=("r1",), playbooks=("site.yml",))
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(tmp_path / "cols"))
    monkeypatch.chdir(tmp_path)
    assert main(["list-tasks", "-i", "localhost,", "ns.col.site"]) == 0
    out = capsys.readouterr().out
    assert f"playbook: {os.path.join(directory, 'playbooks', 'site.yml')}" in out
    assert "ns.col.r1 : r1 task" in out  # the playbook's collection is the default for its short role names
    assert main(["list-tasks", "-i", "localhost,", "ns.col.nope"]) == 1
    assert "the playbook: ns.col.nope could not be found" in capsys.readouterr().err


def test_module_names_resolve_as_ansible_looks_them_up(tmp_path: Path) -> None:
    from engine.plugins.names import AnsibleCore, PluginNames, PluginRemoved, find_ansible_core

    core = find_ansible_core()
    if core is None:
        pytest.skip("needs ansible-core's module list")
    directory = _collection(tmp_path, "ns.col")
    (directory / "plugins" / "modules").mkdir(parents=True)
    (directory / "plugins" / "modules" / "real.py").write_text("")
    (directory / "plugins" / "modules" / "notes.txt").write_text("")  # ignored extension
    (directory / "meta").mkdir()
    (directory / "meta" / "runtime.yml").write_text(
        "plugin_routing:\n  modules:\n    old:\n      redirect: ns.col.real\n"
        "    gone:\n      tombstone: {removal_version: '2.0.0', warning_text: Use ns.col.real.}\n")
    names = PluginNames(core, CollectionFinder(collection_roots([], [str(tmp_path)], scan_sys_path=False)))
    assert names.resolves("ns.col.real", ()) is True
    assert names.resolves("real", ("ns.col", "ansible.legacy")) is True
    assert names.resolves("ns.col.old", ()) is True  # followed to ns.col.real
    assert names.resolves("ns.col.notes", ()) is False
    assert names.resolves("real", ()) is False  # no collection list: legacy lookup only
    assert names.resolves("debug", ()) is True and names.resolves("ansible.legacy.debug", ()) is True
    assert names.resolves("ansible.builtin.gather_facts", ()) is True  # an action plugin
    assert names.resolves("other.col.x", ()) is False  # not installed
    with pytest.raises(PluginRemoved) as removed:
        names.resolves("ns.col.gone", ())
    # the plugin loader's words, then get_deprecation_message_with_plugin_info's (the collection removed it)
    assert str(removed.value) == ("The 'ns.col.gone' module has been removed. Use ns.col.real. This feature was "
                                  "removed from collection 'ns.col' version 2.0.0.")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "custom").write_text("#!/bin/sh\n")
    names.add_plugin_dirs(str(tmp_path))  # a playbook's or legacy role's library/ is not there yet
    assert names.resolves("custom", ()) is False
    names.module_paths.append(str(tmp_path / "lib"))
    assert names.resolves("custom", ()) is True
    unknown = PluginNames(None, names.collections)
    assert unknown.resolves("anything", ()) is None and unknown.resolves("import_tasks", ()) is True
    assert isinstance(core, AnsibleCore)


def test_listing_says_once_that_module_names_were_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from engine.plugins import names as plugin_names

    monkeypatch.setattr(plugin_names, "find_ansible_core", lambda: None)
    monkeypatch.setattr(plugin_names.plugin_names_for, "__defaults__", (plugin_names.find_ansible_core,))
    (tmp_path / "site.yml").write_text("- hosts: localhost\n  tasks:\n    - nosuch: {}\n    - other: {}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["list-tasks", "-i", "localhost,", "site.yml"]) == 0
    err = capsys.readouterr().err
    assert err.count("module names were not checked") == 1
