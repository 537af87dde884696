"""Which modules and filters the roles of real repositories use, and which of them the bundled
engine lacks.

Usage: python bench/role_usage.py REPO_DIR [REPO_DIR ...] [--top 25] [--json FILE]

A role is a directory with a ``tasks/`` directory below a ``roles/`` directory (or a repository
that is one role). Every YAML file of its ``tasks/`` and ``handlers/`` is read: each task's
module (the key that is no task keyword) is counted once per task, each filter of its templates
(Jinja's own parser finds them, in arguments, conditions, loops...) once per use. The files of
``defaults/`` and ``vars/`` add their filters. The report lists, most used first, the modules
and filters the engine lacks (modules that change the system are listed apart: the engine
refuses them on purpose), each with its count and the number of roles using it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from realworld import load_yaml  # noqa: E402

from engine.loading import keywords as kw  # noqa: E402
from engine.run.filter_check import engine_filters, strings, template_filters  # noqa: E402
from engine.run.modules import changes_the_system, get_module  # noqa: E402
from engine.run.preflight import ENGINE_ACTIONS  # noqa: E402

SKIPPED = frozenset({".git", "node_modules", "molecule", "tests", ".tox", "venv"})
TASK_KEYS = kw.TASK_KEYWORDS | {"block", "rescue", "always", "local_action", "with_items", "listen"}


def find_roles(repo: Path) -> Iterator[Path]:
    if (repo / "tasks").is_dir() and (repo / "meta").is_dir():
        yield repo
    for directory, dirs, _files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        if Path(directory).name == "roles":
            for name in list(dirs):
                if (Path(directory, name) / "tasks").is_dir():
                    yield Path(directory, name)


def _files(role: Path, subs: tuple[str, ...]) -> Iterator[Path]:
    for sub in subs:
        for directory, _dirs, files in os.walk(role / sub):
            yield from (Path(directory, f) for f in sorted(files) if f.endswith((".yml", ".yaml")))


def _tasks(data: Any) -> Iterator[dict[str, Any]]:
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict):
                if any(k in item for k in ("block", "rescue", "always")):
                    for section in ("block", "rescue", "always"):
                        yield from _tasks(item.get(section))
                else:
                    yield item


def _module(task: dict[str, Any]) -> str | None:
    for key in task:
        if isinstance(key, str) and key not in TASK_KEYS and not key.startswith("with_"):
            return key
    return None


def _conditions(task: dict[str, Any]) -> Iterator[str]:
    """Bare conditions are templates too (``when``, ``changed_when``, ``failed_when``, ``until``)."""
    for key in ("when", "changed_when", "failed_when", "until"):
        for condition in strings(task.get(key)):
            yield "{{ " + condition + " }}"


def measure(repos: list[Path]) -> dict[str, Any]:
    modules: Counter[str] = Counter()
    filters: Counter[str] = Counter()
    module_roles: dict[str, set[str]] = {}
    filter_roles: dict[str, set[str]] = {}
    roles = 0
    for repo in repos:
        for role in find_roles(repo):
            roles += 1
            label = f"{repo.name}/{role.relative_to(repo)}"
            texts: list[str] = []
            for path in _files(role, ("tasks", "handlers")):
                for task in _tasks(load_yaml(path)):
                    module = _module(task)
                    if module:
                        modules[module] += 1
                        module_roles.setdefault(module, set()).add(label)
                    texts += [*strings(task), *_conditions(task)]
            for path in _files(role, ("defaults", "vars")):
                texts += strings(load_yaml(path))
            for text in texts:
                for name in template_filters(text):
                    filters[name] += 1
                    filter_roles.setdefault(name, set()).add(label)
    known_filters = engine_filters()
    lacking_modules = [(m, n, len(module_roles[m])) for m, n in modules.most_common()
                       if get_module(m) is None and m not in ENGINE_ACTIONS | kw.IMPORT_PLAYBOOK]
    return {
        "roles": roles,
        "tasks": sum(modules.values()),
        "filter_uses": sum(filters.values()),
        "missing_modules": [row for row in lacking_modules if not changes_the_system(row[0])],
        "system_modules": [row for row in lacking_modules if changes_the_system(row[0])],
        "missing_filters": [(f, n, len(filter_roles[f])) for f, n in filters.most_common() if f not in known_filters],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--json", help="write the whole measurement to this file")
    args = parser.parse_args(argv)
    result = measure(args.repos)
    print(f"{result['roles']} roles, {result['tasks']} tasks, {result['filter_uses']} filter uses")
    for title, key in (("modules the engine lacks", "missing_modules"),
                       ("modules that change the system (refused on purpose)", "system_modules"),
                       ("filters the engine lacks", "missing_filters")):
        print(f"\n{title} (uses, roles):")
        for name, count, used_by in result[key][:args.top]:
            print(f"  {count:6d} {used_by:5d}  {name}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
