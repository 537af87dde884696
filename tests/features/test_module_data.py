"""The committed module data is what ansible-core's docs say, and it is loaded only when needed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "playbook_ls" / "data" / "modules.json"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_module_data", ROOT / "scripts" / "gen_module_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_data_matches_installed_ansible_core() -> None:
    pytest.importorskip("ansible.utils.plugin_docs")
    generator = _generator()
    fresh = generator.render(generator.build())
    committed = DATA.read_text(encoding="utf-8")
    assert json.loads(fresh) == json.loads(committed), \
        "playbook_ls/data/modules.json is stale: run python scripts/gen_module_data.py"
    assert fresh == committed


def test_data_is_small_and_covers_the_builtin_modules() -> None:
    assert DATA.stat().st_size < 300_000
    data = json.loads(DATA.read_text(encoding="utf-8"))
    modules = data["modules"]
    assert {"copy", "debug", "template", "include_tasks", "import_role", "command"} <= set(modules)
    copy = modules["copy"]
    assert copy["short_description"] == "Copy files to remote locations"
    assert copy["options"]["dest"] == {**copy["options"]["dest"], "type": "path", "required": True}
    assert "mode" in copy["options"]  # merged from the files doc fragment
    assert "free_form" not in modules["command"]["options"] and modules["command"]["free_form"]
    assert "async_wrapper" not in modules
    assert data["keywords"]["tags"].startswith("Tags applied")


def test_the_server_loads_the_data_lazily_and_never_imports_ansible() -> None:
    script = """
import sys
from playbook_ls.lsp.setup import create_server
from playbook_ls.features import completion, module_data, token_hover
create_server()
assert module_data._data.cache_info().currsize == 0, "modules.json read at start-up"
found = completion.complete(None, "tasks/main.yml", 1, 2, "- name: x\\n  \\n")
assert any(item.label == "ansible.builtin.copy" for item in found.items)
assert module_data._data.cache_info().currsize == 1
assert not [name for name in sys.modules if name == "ansible" or name.startswith("ansible.")]
"""
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)
