"""The files an ``include_tasks`` whose file only the run names could load (``tasks_{{
which.stdout }}.yml``): its target with every template in it taken for any text, matched against the
files where ansible looks for it (the including role's ``tasks``, the directory of the including
file, the playbook's). The plan lists their tasks as depending on the run (engine.flow.host_includes):
which of them loads, if any, is the run's to say, but none loads a task listed nowhere.

A target whose file name is all template (``{{ name }}.yml`` directly in the playbook's directory)
names no candidates: every file there would be one.
"""

from __future__ import annotations

import copy
import glob
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.loading.model import Task

_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
MAX_CANDIDATES = 20
"""More files than this match: the target says too little to list them."""


def target_pattern(raw: str) -> str | None:
    """``raw`` (an include's file) with every template in it a ``*``; None when nothing but its
    extension is written in the file's name and no directory is (it would match every file)."""
    if not _TEMPLATE.search(raw):
        return None
    pattern = _TEMPLATE.sub("*", raw)
    if any(char in _TEMPLATE.sub("", raw) for char in "*?["):
        return None  # a glob character written in the name: not a pattern of ours
    directory, name = os.path.split(pattern)
    stem = os.path.splitext(name)[0]
    if not stem.strip("*") and (not directory or not directory.replace("*", "").strip("/")):
        return None
    return pattern


def candidate_files(include: Task, basedir: str) -> list[tuple[str, Task]]:
    """Each file ``include`` could load, as the target it would name (relative, as written), with a
    copy of the include naming it (what engine.loading.includes loads for that target)."""
    from engine.loading import paths

    args = include.args if isinstance(include.args, Mapping) else {}
    raw = args.get("_raw_params", args.get("file"))
    if not isinstance(raw, str) or (pattern := target_pattern(raw)) is None:
        return []
    roots = []
    if include.role is not None and include.role.path:
        roots.append(os.path.join(include.role.path, "handlers" if include.handler else "tasks"))
    if include.span is not None:
        roots.append(os.path.dirname(include.span.file))
    roots.append(basedir)
    targets: set[str] = set()
    for root in roots:
        for path in glob.glob(os.path.join(glob.escape(root), pattern)):
            if paths.isfile(path):
                targets.add(os.path.relpath(path, root))
        if len(targets) > MAX_CANDIDATES:
            return []
    found = []
    for target in sorted(targets):
        named = copy.copy(include)
        named.args = {key: value for key, value in args.items() if key not in ("_raw_params", "file")}
        named.args["file"] = target
        found.append((target, named))
    return found
