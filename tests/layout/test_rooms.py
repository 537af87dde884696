"""The static engine stays grouped in rooms, and no module grows past what a reader takes in.

engine/ holds a few shared modules (spans, values, files, the ansible.cfg reader...) and packages
that each do one job (parsing, loading, templating, variables, flow, plugins, launch, inventory,
run); docs/architecture.md says what each holds and which reads which.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_TOP_LEVEL_MODULES = 12
MAX_LINES = 800


def test_few_modules_sit_directly_in_engine() -> None:
    top = sorted(path.name for path in (ROOT / "engine").glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_no_module_is_over_the_line_limit() -> None:
    long = sorted(f"{path.relative_to(ROOT)}: {lines}" for package in ("engine", "playbook_ls")
                  for path in (ROOT / package).rglob("*.py")
                  if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES)
    assert long == []


def test_every_room_says_what_it_holds_and_imports_nothing_itself() -> None:
    """A room's ``__init__`` is read first: it says what the room holds, and importing the room
    (for any one module of it) costs nothing more."""
    # engine/run/modules/__init__.py is the bundled engine's module registry, not a room
    rooms = [path for path in (ROOT / "engine").rglob("__init__.py") if path.parent != ROOT / "engine"
             and (ROOT / "engine" / "run" / "modules") not in (path.parent, *path.parents)]
    assert len(rooms) >= 10
    for init in rooms:
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), init
        assert [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)] == [], init
