"""Each cache names all the engine code its values depend on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine import code_files

ENGINE = Path(code_files.__file__).parent


def _engine_imports(path: Path) -> set[str]:
    """The ``engine`` modules a file imports, as paths under ``engine/``, lazy imports included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "engine":
            found.update(f"{alias.name}.py" for alias in node.names)
            continue
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found.update(name.removeprefix("engine.").replace(".", "/") + ".py" for name in names
                     if name.startswith("engine."))
    return found


def _closure(start: str) -> set[str]:
    closure, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in closure and (ENGINE / name).is_file():
            closure.add(name)
            todo.extend(_engine_imports(ENGINE / name))
    return closure


@pytest.mark.parametrize(("computed_by", "named"), [
    ("parsing/yaml_compose.py", code_files.PARSER),
    ("plugins/routing.py", code_files.ROUTING),
    ("plugins/index.py", code_files.MODULE_DOCS),
])
def test_a_cache_names_every_engine_module_its_code_imports(computed_by: str, named: tuple[str, ...]) -> None:
    """A module left out could change a value while the cache kept the old one."""
    assert _closure(computed_by) - {"code_files.py"} <= set(named)


def test_a_changed_module_changes_the_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = tmp_path / "some_module.py"
    module.write_text("X = 1\n")
    monkeypatch.setattr(code_files, "_ENGINE", str(tmp_path))
    before = code_files.identity(("some_module.py",))
    module.write_text("X = 22\n")
    monkeypatch.setattr(code_files, "_identities", {})
    assert code_files.identity(("some_module.py",)) != before
