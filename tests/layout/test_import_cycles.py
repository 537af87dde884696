"""Every import arrow between playbook-ls's modules points one way.

Counts every import: at module level, inside functions, and under ``TYPE_CHECKING``, since each
of them is a dependency a reader has to follow. A package's ``__init__`` is a module like the
others (importing ``a.b`` does not count as importing ``a``).
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "playbook_ls")


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                # "from pkg import mod" imports the module pkg.mod when there is one
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_checker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_engine_does_not_import_playbook_ls() -> None:
    graph = import_graph()
    leaks = sorted(f"{m} -> {t}" for m, targets in graph.items() if m.startswith("engine")
                   for t in targets if t.startswith("playbook_ls"))
    assert leaks == []


# The faces of a run: the modules that start one (the `run` command, the editor's run worker)
# and tell which runs the bundled engine can take (its local connections).
RUNNERS = ("playbook_ls.cli.run", "playbook_ls.features.run_worker", "playbook_ls.features.ansible_runs")


def test_only_runs_import_the_engine_run() -> None:
    """Variables, findings and hovers read the static engine: the bundled engine (engine.run)
    uses it for run-time values, never the other way, so a static answer and a run's answer
    are one computation."""
    graph = import_graph()
    leaks = sorted(f"{m} -> {t}" for m, targets in graph.items()
                   if not m.startswith("engine.run") and m not in RUNNERS
                   for t in targets if t == "engine.run" or t.startswith("engine.run."))
    assert leaks == []
