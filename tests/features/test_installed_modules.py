"""Hover, completion and go-to-definition for a module of an installed collection, read from the
module index (its file is never imported)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bounded import spent

from engine.plugins.index import ModuleIndex
from playbook_ls.features import module_data
from playbook_ls.features.completion import complete, module_items
from playbook_ls.features.navigation import definition
from playbook_ls.features.token_hover import token_hover
from playbook_ls.features.workspace import WorkspaceIndex
from tests.module_tree import make_tree

PLAYBOOK = """- hosts: all
  tasks:
    - name: where
      acme.tools.beacon:
        host: example.org
        mode: absent
"""


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleIndex, Path]:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    index, marker = make_tree(tmp_path)
    monkeypatch.setattr(module_data, "installed", lambda: index)
    monkeypatch.setattr(module_data, "index_for", lambda *_args: index)
    module_data.module.cache_clear()
    yield index, marker
    module_data.module.cache_clear()


@pytest.fixture()
def workspace(tmp_path: Path) -> tuple[WorkspaceIndex, str]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "site.yml").write_text(PLAYBOOK)
    index = WorkspaceIndex(str(root))
    index.index()
    return index, str(root / "site.yml")


def test_hover_on_the_module_and_on_an_option(tree, workspace) -> None:
    index, path = workspace
    with spent() as took:
        text = token_hover(index, path, 3, 10)
    assert text is not None and "**acme.tools.beacon** — Says where it is" in text
    assert "`host` *str, required*" in text and "`port` *int, default: 22*" in text
    assert "one of: present, absent" in text
    option = token_hover(index, path, 4, 9)
    assert option is not None and option.startswith("`host` of **acme.tools.beacon** — *str, required*")
    assert "Overrides the fragment's description only." in option
    assert took.cpu < 2  # the first read of one module; later ones come from memory
    assert not tree[1].exists()


def test_option_completion_and_module_names(tree, workspace) -> None:
    index, path = workspace
    text = PLAYBOOK + "        p"
    found = complete(index, path, 6, 9, text)
    assert found is not None
    port = next(item for item in found.items if item.label == "port")
    assert port.detail == "int, default: 22"
    assert "host" not in [item.label for item in found.items]  # already written
    tree[0].summaries()
    names = {item.label for item in module_items()}
    assert {"acme.tools.beacon", "acme.tools.win_beacon", "local_thing"} <= names


def test_definition_of_the_module_opens_its_file(tree, workspace) -> None:
    index, path = workspace
    spans = definition(index, path, 3, 10)
    assert [span.file for span in spans] == [tree[0].files()["acme.tools.beacon"].path]


def test_the_workspace_s_library_and_collections_are_indexed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    _tree, _marker = make_tree(tmp_path)
    root = tmp_path / "ws"
    (root / "collections").mkdir(parents=True)
    (tmp_path / "root" / "ansible_collections").rename(root / "collections" / "ansible_collections")
    (root / "library").mkdir()
    (root / "library" / "mine.py").write_text('DOCUMENTATION = """\nshort_description: Mine\noptions: {}\n"""\n')
    (root / "site.yml").write_text(PLAYBOOK)
    workspace = WorkspaceIndex(str(root))
    modules = module_data.index_for(workspace, str(root / "site.yml"))
    if modules is None:
        pytest.skip("ansible-core is not installed")
    assert modules.resolve("mine") == "mine"
    assert modules.resolve("acme.tools.beacon") == "acme.tools.beacon"
    assert module_data.index_for(workspace, str(root / "site.yml")) is modules  # one per configuration


def test_hover_shows_runtime_deprecations_and_removals(tree, tmp_path: Path) -> None:
    index, _marker = tree
    meta = tmp_path / "root" / "ansible_collections" / "acme" / "tools" / "meta"
    meta.mkdir()
    (meta / "runtime.yml").write_text(
        "plugin_routing:\n  modules:\n    old_beacon:\n      redirect: acme.tools.beacon\n"
        "      deprecation: {removal_version: 3.0.0, warning_text: Use acme.tools.beacon instead.}\n"
        "    lighthouse:\n      tombstone: {removal_version: 2.0.0, warning_text: Use acme.tools.beacon.}\n")
    text = module_data.module_markdown("acme.tools.old_beacon", index)
    assert text is not None and text.startswith("**acme.tools.beacon** — Says where it is")
    assert ("**Deprecated.** acme.tools.old_beacon is deprecated (removal in version 3.0.0): Use "
            "acme.tools.beacon instead. It now redirects to acme.tools.beacon.") in text
    assert "Deprecated" not in (module_data.module_markdown("acme.tools.beacon", index) or "")
    assert module_data.module_markdown("acme.tools.lighthouse", index) == (
        "**Removed.** acme.tools.lighthouse was removed in version 2.0.0. Use acme.tools.beacon.")


def test_a_short_name_is_looked_up_in_the_plays_collections(tree, tmp_path: Path) -> None:
    root = tmp_path / "short"
    root.mkdir()
    source = ("- hosts: all\n  collections: [acme.tools]\n  tasks:\n    - name: where\n      beacon:\n"
            "        host: example.org\n        mode: absent\n"
            "- hosts: all\n  tasks:\n    - name: elsewhere\n      beacon:\n        host: x\n")
    (root / "site.yml").write_text(source)
    workspace = WorkspaceIndex(str(root))
    workspace.index()
    path = str(root / "site.yml")
    text = token_hover(workspace, path, 4, 8)
    assert text is not None and text.startswith("**acme.tools.beacon**")
    option = token_hover(workspace, path, 5, 9)
    assert option is not None and option.startswith("`host` of **acme.tools.beacon**")
    assert token_hover(workspace, path, 10, 8) is None  # that play names no collection
    assert definition(workspace, path, 4, 8)[0].file.endswith("beacon.py")
    items = complete(workspace, path, 6, 10, source.replace("        mode: absent", "        mo"))
    assert items is not None and "mode" in [item.label for item in items.items]


def test_completion_of_an_options_choices(tree, workspace) -> None:
    index, path = workspace
    text = PLAYBOOK.replace("        mode: absent", "        mode: ab")
    found = complete(index, path, 5, 16, text)
    assert found is not None and found.start == 14
    assert [(item.label, item.detail) for item in found.items] == [("present", "default"), ("absent", "")]
    assert found.items[0].sort < found.items[1].sort  # the default first
    quoted = complete(index, path, 5, 17, PLAYBOOK.replace("        mode: absent", "        mode: 'ab"))
    assert quoted is not None and quoted.start == 15
    assert complete(index, path, 4, 16, PLAYBOOK.replace("example.org", "ex")) is None  # no choices
