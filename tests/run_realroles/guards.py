"""Why a role's scenario is not written (role_scenarios.py cuts it, realroles.py records it):

* it reads the clock in a way the harness cannot fix: Jinja's ``now()``, ``strftime`` of the
  current time, the template module's ``template_run_date``; or draws at random (the ``random``
  filter without a ``seed``); in a file its task file may run
  (the role's other task files and templates do not count). Each run of either tool then
  prints or writes another time, so no comparison of the two can be exact. (A ``date``
  command, in a pipe lookup or a kept command line, reads the scenario's fixed clock instead:
  ``"clock"`` in case.json, see tests/run/engine_cases.py.)
* a path a kept task writes to or runs in (``dest``, ``path``, ``chdir``...) may be absolute once
  templated, though the cutting moved every path it could see into the scenario: a
  variable of the role whose value is, or may be, a path outside it (``{{ prefix }}/bin`` with
  ``prefix: "{{ '/srv' if x else '/opt' }}"``, a literal after a Jinja statement, a string
  inside an expression). ansible-playbook would then write outside the scratch directory.

Each reason is one line. And after each recording, :func:`outside_changes` lists what changed
under :data:`WATCHED` meanwhile: a write of ansible's that left the scenario all the same (or
another program's on the machine), which the recording reports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import role_scenarios
import yaml

# reading the clock where no `date` on PATH can fix it
CLOCK = (
    (re.compile(r"(?<![\w.])now\s*\("), "reads the clock: Jinja's now()"),
    (re.compile(r"\|\s*strftime\b(?!\s*\(\s*[^)\s])"), "reads the clock: strftime of the current time"),
    (re.compile(r"\btemplate_run_date\b"), "reads the clock: the template module's template_run_date"),
    # each run draws another value: ``random`` without a ``seed``
    (re.compile(r"\|\s*random\b(?!\s*\([^)]*\bseed\s*=)"), "draws at random: the random filter without a seed"),
)
# the arguments a kept task writes to, or runs its command in
WRITTEN_ARGS = ("dest", "path", "name", "chdir")
# the modules that run another task file of the role
INCLUDES = frozenset({"include_tasks", "import_tasks", "include"})
# modules whose path arguments name what they write (file's ``name``: its ``path``)
WRITERS = frozenset({"template", "copy", "file", "lineinfile", "blockinfile", "replace", "assemble", "ini_file",
                     "community.general.ini_file", "unarchive", "command", "shell"})
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_HARMLESS = re.compile(r"^/(?:dev|proc|sys)(?:/|$)")
_STATEMENT = re.compile(r"\{%.*?%\}", re.DOTALL)
_EXPRESSION = re.compile(r"^\{\{(.*?)\}\}", re.DOTALL)
# a string an expression may evaluate to: at its start, a conditional's else, a default's
_LITERAL = re.compile(r"""(?:^|\belse\b|\bdefault\(|\bd\(|\bor\b)\s*\(*\s*(['"])(/[^'"]*)\1""")
_LEAD_NAME = re.compile(r"""^\s*\(?\s*([A-Za-z_]\w*)((?:\s*(?:\.\w+|\[\s*['"][^'"]+['"]\s*\]))*)""")
_KEY = re.compile(r"""\.(\w+)|\[\s*['"]([^'"]+)['"]\s*\]""")
DEPTH = 8
# where a role's unmoved path would write on this machine: checked after each recording
WATCHED = ("/usr/local", "/etc", "/opt", os.path.expanduser("~"))
# where other programs of the machine write routinely (ansible-playbook's local temporary files,
# caches): the recording's own runs keep theirs in the scratch directory (HOME, ANSIBLE_HOME and
# ANSIBLE_LOCAL_TEMP there), so a change here is not theirs
UNWATCHED = (os.path.expanduser("~/.ansible/tmp"), os.path.expanduser("~/.cache"))
# a file's times come from the kernel's coarse clock, behind time.time() by up to a tick: a
# recording looks for changes from this many seconds before it started
TIME_SLACK = 1.0


def _text(file: Path) -> str:
    try:
        return file.read_text() if file.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return ""


def _included(task: dict[str, Any]) -> str | None:
    """The task file an ``include_tasks`` / ``import_tasks`` / ``include`` task names ("" for none)."""
    _, module, args = role_scenarios.written(task)
    if module is None or role_scenarios.short_name(module) not in INCLUDES:
        return ""
    name = args.get("file") if isinstance(args, dict) else args
    if isinstance(name, str) and "{" not in name and name.split():
        name = name.split()[0]  # ``include: x.yml tags=y``: the file, then its parameters
    return name if isinstance(name, str) else None


def reached_files(role: Path, tasks_from: str) -> set[Path] | None:
    """The role's task files and templates a scenario of ``tasks/<tasks_from>`` may run: that task
    file, those it includes or imports by a literal name (again and again), the templates whose
    file name those files or reached templates mention. None when a name is templated (any file
    may then run)."""
    tasks = role / "tasks"
    files = sorted(tasks.rglob("*.y*ml")) if tasks.is_dir() else []
    by_name = {f.relative_to(tasks).with_suffix("").as_posix(): f for f in files}
    todo = [f for f in files if f.relative_to(tasks).with_suffix("").as_posix() == tasks_from]
    reached: set[Path] = set()
    while todo:
        file = todo.pop()
        if file in reached:
            continue
        reached.add(file)
        try:
            data = yaml.safe_load(_text(file))
        except yaml.YAMLError:
            return None
        for task in role_scenarios.leaf_tasks(data):
            name = _included(task)
            if name is None or "{{" in (name or "") or "{%" in (name or ""):
                return None
            if name and (target := by_name.get(str(Path(name.removeprefix("tasks/")).with_suffix("")))):
                todo.append(target)
    templates = sorted(f for f in (role / "templates").rglob("*") if f.is_file()) \
        if (role / "templates").is_dir() else []
    texts = "\n".join(_text(f) for f in reached)
    grown = True
    while grown:
        grown = False
        for template in templates:
            if template not in reached and template.name in texts:
                reached.add(template)
                texts += "\n" + _text(template)
                grown = True
    return reached


def clock_reasons(role: Path, tasks_from: str | None = None) -> list[str]:
    """What in the role's files reads the clock beyond a `date` command: any of them, or with
    ``tasks_from`` those a scenario of that task file may run (its defaults, vars and handlers,
    and :func:`reached_files`)."""
    found = []
    reached = reached_files(role, tasks_from) if tasks_from is not None else None
    for sub in ("tasks", "handlers", "defaults", "vars", "templates"):
        for file in sorted((role / sub).rglob("*")) if (role / sub).is_dir() else []:
            if reached is not None and sub in ("tasks", "templates") and file not in reached:
                continue
            text = _text(file)
            jinja = "\n".join(_JINJA.findall(text))
            for pattern, what in CLOCK:
                if pattern.search(jinja):
                    found.append(f"{what} in {file.relative_to(role)}")
    return found


def starts(text: str, variables: Mapping[str, list[Any]], depth: int = 0) -> Iterator[str]:
    """The beginnings a templated text may have, as far as the role's own variables tell: the
    text after each Jinja statement (each branch of an ``if``), an expression's string
    literals, the value of the variable an expression starts with."""
    if depth > DEPTH:
        return
    pieces = [p for p in _STATEMENT.split(text) if p.strip()] if text.lstrip().startswith("{%") else [text]
    for piece in pieces:
        piece = piece.lstrip()
        match = _EXPRESSION.match(piece)
        if not match:
            yield piece
            continue
        expression = match.group(1)
        yield from (literal for _, literal in _LITERAL.findall(expression))
        name = _LEAD_NAME.match(expression)
        for value in variables.get(name.group(1), []) if name else []:
            value = _item(value, name.group(2))
            if isinstance(value, str):
                yield from starts(value, variables, depth + 1)


def _item(value: Any, keys: str) -> Any:
    """``value.a['b']``: the item that keys name, or None."""
    for key in _KEY.finditer(keys or ""):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key.group(1) or key.group(2))
    return value


def escaping_paths(directory: Path, role: str) -> list[str]:
    """The kept tasks of a written scenario whose written path may leave the scenario."""
    role_dir = directory / "roles" / role
    variables: dict[str, list[Any]] = {}  # each value a file of defaults/ or vars/ gives a name
    for sub in ("defaults", "vars"):
        for file in sorted((role_dir / sub).rglob("*.y*ml")) if (role_dir / sub).is_dir() else []:
            data = yaml.safe_load(file.read_text())
            for name, value in (data if isinstance(data, dict) else {}).items():
                variables.setdefault(name, []).append(value)
    found = []
    for sub in ("tasks", "handlers"):
        for file in sorted((role_dir / sub).rglob("*.y*ml")) if (role_dir / sub).is_dir() else []:
            for task in role_scenarios.leaf_tasks(yaml.safe_load(file.read_text())):
                _, module, args = role_scenarios.written(task)
                if module is None or role_scenarios.short_name(module) not in WRITERS:
                    continue
                given = {**(task.get("args") if isinstance(task.get("args"), dict) else {}),
                         **(args if isinstance(args, dict) else role_scenarios.free_form(str(args or "")))}
                for arg in WRITTEN_ARGS:
                    value = given.get(arg)
                    outside = [s for s in starts(value, variables) if s.startswith("/") and not _HARMLESS.match(s)] \
                        if isinstance(value, str) else []
                    if outside:
                        found.append(f"{file.relative_to(role_dir)}: {task.get('name', module)!r}: {arg} "
                                     f"{value!r} may be {outside[0]!r}, outside the scenario")
    return found


def outside_changes(since: float, watched: tuple[str, ...] | None = None) -> list[str]:
    """The paths under ``watched`` (default :data:`WATCHED`; themselves included, those under
    :data:`UNWATCHED` not) made or changed at or after ``since`` (a ``time.time()``); a directory
    an entry left counts as changed."""
    changed = []
    for top in WATCHED if watched is None else watched:
        for root, directories, files in os.walk(top):
            directories[:] = [d for d in directories if os.path.join(root, d) not in UNWATCHED]
            for path in [root, *(os.path.join(root, name) for name in files)]:
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if max(info.st_mtime, info.st_ctime) >= since:
                    changed.append(path)
    return changed
