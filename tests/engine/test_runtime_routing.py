"""One routing entry read alone must be what the whole runtime.yml, loaded by YAML, holds."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.plugins import routing as runtime_routing
from engine.plugins.names import find_ansible_core
from engine.plugins.routing import LARGE_RUNTIME, _yaml_routing, routing_entry

PADDING = "# padding so that the file counts as large\n" * (LARGE_RUNTIME // 40)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "runtime.yml"
    path.write_text(PADDING + text)
    return str(path)


def _every_entry_agrees(path: str, extra_names: tuple[str, ...] = ()) -> int:
    table = _yaml_routing(runtime_routing._read(path))
    checked = 0
    for kind, section in table.items():
        names = list(section) if isinstance(section, dict) else []
        for name in [*names, *extra_names]:
            expected = section.get(name) if isinstance(section, dict) else None
            assert routing_entry(path, kind, name) == expected, (path, kind, name)
            checked += 1
    return checked


def test_installed_ansible_core_table_read_entry_by_entry_equals_the_whole() -> None:
    core = find_ansible_core()
    if core is None:
        pytest.skip("no ansible-core installed")
    assert os.path.getsize(core.runtime) > LARGE_RUNTIME
    outline = runtime_routing._outline(core.runtime)
    assert outline is not None, "ansible-core's own table must be read entry by entry"
    assert _every_entry_agrees(core.runtime, extra_names=("no_such_module", "copy", "file", "ping")) > 3000


def test_installed_collections_agree() -> None:
    core = find_ansible_core()
    if core is None:
        pytest.skip("no ansible-core installed")
    found = glob.glob(os.path.join(os.path.dirname(core.package), "ansible_collections", "*", "*", "meta",
                                   "runtime.yml"))
    for path in found[:200]:
        _every_entry_agrees(path, extra_names=("no_such_plugin",))


def test_a_lookup_does_not_load_the_whole_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "plugin_routing:\n  modules:\n    old:\n      redirect: ns.coll.new\n"
                            "    gone:\n      tombstone:\n        removal_version: '2.0'\n"
                            "        warning_text: Use x.\n"
                            "  action:\n    old:\n      redirect: ns.coll.new\n")

    def refuse(_path: str) -> dict[str, object]:
        raise AssertionError("the whole table was loaded")

    monkeypatch.setattr(runtime_routing, "load_routing", refuse)
    assert routing_entry(path, "modules", "old") == {"redirect": "ns.coll.new"}
    assert routing_entry(path, "modules", "gone") == {"tombstone": {"removal_version": "2.0", "warning_text": "Use x."}}
    assert routing_entry(path, "action", "old") == {"redirect": "ns.coll.new"}
    assert routing_entry(path, "modules", "absent") is None


@pytest.mark.parametrize("text", [
    # a repeated key: the last one wins
    "plugin_routing:\n  modules:\n    a:\n      redirect: x.y.first\n    a:\n      redirect: x.y.last\n",
    # a quoted key, a flow entry, a comment between entries, a null entry
    "plugin_routing:\n  modules:\n    'a':\n      redirect: x.y.q\n    b: {redirect: x.y.b}\n# note\n    c:\n"
    "    d:\n      redirect: x.y.a\n",
    # a flow section, another top-level key after the routing
    "plugin_routing:\n  modules: {a: {redirect: x.y.z}}\n  action:\n    a:\n      redirect: x.y.w\n"
    "requires_ansible: '>=2.15'\n",
    # anchors and aliases
    "plugin_routing:\n  modules:\n    a: &same\n      redirect: x.y.z\n    b: *same\n",
    # deeper indentation than ansible-core's
    "plugin_routing:\n    modules:\n        a:\n            redirect: x.y.z\n",
    # a repeated section
    "plugin_routing:\n  modules:\n    a:\n      redirect: x.y.one\n  modules:\n    b:\n      redirect: x.y.two\n",
])
def test_unusual_layouts_answer_as_yaml_does(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, text)
    _every_entry_agrees(path, extra_names=("a", "b", "c", "d", "absent"))


def test_a_runtime_yml_that_is_no_regular_file_routes_nothing_and_does_not_block(tmp_path: Path) -> None:
    """A collection in the repository can hold any file as meta/runtime.yml: a FIFO would block a
    plain open() for ever, a device would be read until memory runs out."""
    fifo = tmp_path / "runtime.yml"
    os.mkfifo(fifo)
    code = ("import sys\nfrom engine.plugins.routing import load_routing, routing_entry\n"
            f"print(routing_entry({str(fifo)!r}, 'modules', 'x'), load_routing({str(fifo)!r}),"
            " routing_entry('/dev/zero', 'modules', 'x'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "{}", "None"]
