"""The module index reads every module's documentation from its file without running it, and
reads what ``ansible-doc --json`` shows (the options recorded in ``module_docs_sample.json``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from engine.plugins.collection_search import CollectionFinder, collection_roots
from engine.plugins.docs import option_view
from engine.plugins.index import ModuleIndex
from engine.plugins.names import find_ansible_core
from tests.ansible_tools import LIVE_ALL, find_tool, live_sample
from tests.module_tree import make_tree

SAMPLE = json.loads((Path(__file__).parent / "module_docs_sample.json").read_text(encoding="utf-8"))

@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleIndex, Path]:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    return make_tree(tmp_path)


def test_docs_are_read_without_importing_and_fragments_merge_as_ansible_merges(tree) -> None:
    index, marker = tree
    doc = index.doc("acme.tools.beacon")
    assert doc is not None and not marker.exists()
    options = doc["options"]
    # the module's own keys win, key by key, over the fragment's option
    assert options["host"] == {"description": "Overrides the fragment's description only.", "type": "str",
                               "required": True}
    assert options["port"] == {"type": "int", "default": 22}  # the EXTRA variant, named conn.extra
    assert options["mode"]["choices"] == ["present", "absent"]
    assert doc["notes"] == ["from the fragment"]
    docs = index.docs("acme.tools.beacon")
    assert docs and docs["examples"].startswith("- acme.tools.beacon") and docs["returndocs"]["where"]["type"] == "str"
    assert index.doc("acme.tools.win_beacon")["options"] == {"path": {"type": "path"}}
    assert index.files()["acme.tools.win_beacon"].path.endswith("win_beacon.ps1")
    summaries = index.summaries()
    assert summaries["acme.tools.beacon"]["short_description"] == "Says where it is"
    assert index.resolve("local_thing") == "local_thing"
    assert index.resolve("beacon", ["acme.tools"]) == "acme.tools.beacon"
    assert not marker.exists()


def test_the_cache_is_read_back_and_dropped_when_the_file_changes(tree, monkeypatch) -> None:
    index, _marker = tree
    index.summaries()
    assert index.doc("acme.tools.beacon")
    again = ModuleIndex(None, index.collections, index.library_dirs)
    monkeypatch.setattr("engine.plugins.index.plugin_docs", lambda *_a: pytest.fail("parsed again"))
    assert again.doc("acme.tools.beacon")["options"]["mode"]["default"] == "present"
    monkeypatch.undo()
    path = Path(again.files()["acme.tools.beacon"].path)
    path.write_text(path.read_text().replace("default: present", "default: absent"))
    os.utime(path, ns=(1, 1))
    fresh = ModuleIndex(None, index.collections, index.library_dirs)
    assert fresh.doc("acme.tools.beacon")["options"]["mode"]["default"] == "absent"


def _installed_index() -> ModuleIndex:
    core = find_ansible_core()
    if core is None:
        pytest.skip("ansible-core is not installed")
    return ModuleIndex(core, CollectionFinder(collection_roots([], [])))


def test_a_warm_index_lists_its_files_from_the_cached_summaries(tree, monkeypatch) -> None:
    index, _marker = tree
    index.summaries()
    again = ModuleIndex(None, index.collections, index.library_dirs)
    monkeypatch.setattr("engine.plugins.index._module_files", lambda *_a: pytest.fail("walked again"))
    again._build()
    assert again.files() == index.files() and again.summaries() == index.summaries()


def test_an_installed_collection_is_keyed_by_its_directories(tree) -> None:
    index, _marker = tree
    collection = Path(index.collections.roots[0]) / "ansible_collections" / "acme" / "tools"
    (collection / "MANIFEST.json").write_text("{}")
    assert index.summaries()["acme.tools.beacon"]["short_description"] == "Says where it is"
    module = collection / "plugins" / "modules" / "beacon.py"
    module.write_text(module.read_text().replace("Says where it is", "Edited in place"))
    # an installed collection's files are only replaced by installing it again, which creates them
    same = ModuleIndex(None, index.collections, index.library_dirs)
    assert same.summaries()["acme.tools.beacon"]["short_description"] == "Says where it is"
    (collection / "plugins" / "modules" / "added.py").write_text('DOCUMENTATION = """\nshort_description: New\n"""\n')
    os.utime(collection / "plugins" / "modules", ns=(10**18, 10**18))
    changed = ModuleIndex(None, index.collections, index.library_dirs)
    assert changed.summaries()["acme.tools.beacon"]["short_description"] == "Edited in place"
    assert changed.summaries()["acme.tools.added"]["short_description"] == "New"
    # without a manifest (a collection under edit), an edit in place is seen
    (collection / "MANIFEST.json").unlink()
    module.write_text(module.read_text().replace("Edited in place", "Edited again"))
    os.utime(module, ns=(2, 2))
    edited = ModuleIndex(None, index.collections, index.library_dirs)
    assert edited.summaries()["acme.tools.beacon"]["short_description"] == "Edited again"


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_options_are_those_ansible_doc_shows(name: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path))
    index = _installed_index()
    resolved = index.resolve(name)
    if resolved is None:
        pytest.skip(f"{name} is not installed here (the ansible package brings it)")
    assert option_view(index.doc(resolved)["options"]) == SAMPLE[name]


def test_the_recording_still_matches_ansible_doc() -> None:
    """Re-asks ansible-doc (one call, seconds of CPU) with ``PLAYBOOK_LS_LIVE`` set."""
    tool = find_tool("ansible-doc")
    if tool is None or not os.environ.get(LIVE_ALL):
        pytest.skip("set PLAYBOOK_LS_LIVE (and install ansible-core) to re-check against ansible-doc")
    index = _installed_index()
    names = [n for n in live_sample(sorted(SAMPLE)) if index.resolve(n)]
    run = subprocess.run([tool, "--json", "-t", "module", *names], capture_output=True, text=True, check=True)
    live = json.loads(run.stdout)
    assert {n: option_view(live[n]["doc"].get("options")) for n in names} == {n: SAMPLE[n] for n in names}


def _lazy_and_whole_agree(index: ModuleIndex, extra_names: list[str]) -> int:
    whole = ModuleIndex(index.core, index.collections, index.library_dirs).files()
    lazy = ModuleIndex(index.core, index.collections, index.library_dirs)
    names = [*whole, *extra_names]
    for name in names:
        assert lazy.file(name) == whole.get(name), name
    assert lazy._files is None, "the lookups must not have built the whole index"
    return len(names)


def test_one_module_is_found_as_the_whole_index_finds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    index, _marker = make_tree(tmp_path)
    library = tmp_path / "library"
    (library / "sub").mkdir(parents=True)
    (library / "__private").mkdir()
    for relative in ("local.py", "sub/nested.py", "dotted.name.py", "__private/hidden.py", "data.yml",
                     "win.ps1", "win.yml", "notes.md"):
        (library / relative).write_text("# a module\n")
    modules = Path(index.collections.roots[0]) / "ansible_collections" / "acme" / "tools" / "plugins" / "modules"
    (modules / "cloud" / "vm").mkdir(parents=True)
    (modules / "cloud" / "vm" / "start.py").write_text("# a module\n")
    (modules / "cloud.vm.start.py").write_text("# the same name, found first\n")
    (modules / "local.py").write_text("# shadowed by library/ for the bare name only\n")
    index = ModuleIndex(index.core, index.collections, [str(library)])
    checked = _lazy_and_whole_agree(index, ["sub.nested", "nested", "dotted.name", "__private.hidden", "data", "win",
                                            "notes", "acme.tools.cloud.vm.start", "acme.tools.absent", "absent",
                                            "acme.tools.__x.y", "acme.other.thing"])
    assert checked > 10


def test_the_installed_modules_are_found_one_by_one_as_in_the_whole_index() -> None:
    core = find_ansible_core()
    if core is None:
        pytest.skip("no ansible-core installed")
    index = ModuleIndex(core, CollectionFinder(collection_roots([], [])), [])
    assert _lazy_and_whole_agree(index, ["ansible.builtin.no_such_module", "no_such_module"]) > 50
