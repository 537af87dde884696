"""One module makes the Jinja environments: the loader, the variable model, the plan, the inventory
plugins, the rules and the run template in one environment, given less where a context must not
see something. Another environment, made elsewhere, is how two templating paths came to disagree."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENVIRONMENT_CLASSES = frozenset({"Environment", "SandboxedEnvironment", "ImmutableSandboxedEnvironment",
                                 "NativeEnvironment"})


def _makes_an_environment(path: pathlib.Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in ENVIRONMENT_CLASSES or name in ("overlay", "bounded_environment_class"):
                lines.append(node.lineno)
    return lines


def test_only_one_module_makes_a_jinja_environment() -> None:
    makers = {str(path.relative_to(ROOT)): lines for package in ("engine", "playbook_ls")
              for path in sorted((ROOT / package).rglob("*.py")) if (lines := _makes_an_environment(path))}
    assert [path for path in makers if pathlib.Path(path).name != "jinja_environment.py"] == []
    assert len(makers) == 1
