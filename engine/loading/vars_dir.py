"""``include_vars: dir=...`` as ansible-core 2.19's action reads a directory of variables files:
where the directory is (``_set_root_dir``), the walk (``_traverse_dir_depth``: directories sorted,
``depth``, links followed), which files it reads (``files_matching``, ``ignore_files``,
``extensions``, ``ignore_unknown_extensions``) and its failures, worded as the action words them.
"""

from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Callable, Mapping
from typing import Any

EXTENSIONS = ["yaml", "yml", "json"]


class VarsDirError(Exception):
    """An ``AnsibleError`` the action raises (the task fails with it as its message)."""


def root_dir(folder: str, role_path: str | None, task_file: str | None) -> str:
    """``_set_root_dir``: a role's ``vars/`` (a path starting with ``vars`` is the role's own, if
    it exists), else beside the file the task is written in."""
    if role_path:
        if folder.split("/")[0] == "vars":
            candidate = os.path.join(role_path, folder)
            return candidate if os.path.exists(candidate) else folder
        return os.path.join(role_path, "vars", folder)
    if task_file:
        return os.path.join(os.path.dirname(os.path.abspath(task_file)), folder)
    return folder


def read_vars_dir(args: Mapping[str, Any], root: str, role_path: str | None,
                  load: Callable[[str], Any]) -> tuple[str | None, dict[str, Any], list[str], dict[str, Any]]:
    """(error message or None, the variables, the files read, where each value is written) for
    the directory ``root``; ``load(path)`` gives a file's data. Raises :class:`VarsDirError`."""
    depth = args.get("depth") or 0
    matching = args.get("files_matching")
    matcher = re.compile(rf"{matching}") if matching else None
    ignored: Any = args.get("ignore_files") or []
    if isinstance(ignored, str):
        ignored = ignored.split()
    extensions: Any = args.get("extensions", EXTENSIONS)
    if isinstance(extensions, str):
        extensions = list(extensions)  # the action's own conversion: one extension per character
    if not isinstance(extensions, list):
        raise VarsDirError('Invalid type for "extensions" option, it must be a list')
    unknown_ok = args.get("ignore_unknown_extensions", False)
    if not os.path.exists(root):
        return f"{root} directory does not exist", {}, [], {}
    if not os.path.isdir(root):
        return f"{root} is not a directory", {}, [], {}
    results: dict[str, Any] = {}
    origins: dict[str, Any] = {}
    files: list[str] = []
    for current, names in _walk(root, depth):
        found: dict[str, Any] = {}
        found_origins: dict[str, Any] = {}
        for name in names:
            if role_path and os.path.join(role_path, name) == os.path.join(current, "vars", "main.yml"):
                continue  # never a role's vars/main.yml, which the role reads itself
            path = os.path.join(current, name)
            if matcher is not None and not matcher.search(name):
                continue
            if not os.path.exists(path) or _ignored(name, ignored) or (unknown_ok and not _valid(name, extensions)):
                continue
            if not _valid(name, extensions):
                return f"{path} does not have a valid extension: {', '.join(extensions)}", results, files, origins
            data = load(path)
            if data is None:
                data = {}
            if not isinstance(data, dict):
                return f"{path} must be stored as a dictionary/hash", results, files, origins
            files.append(path)
            found.update(data)
            spans = getattr(data, "value_spans", {})
            found_origins.update((str(key), spans.get(key)) for key in data)
        results.update(found)
        origins.update(found_origins)
    return None, results, files, origins


def _walk(root: str, depth: int) -> list[tuple[str, list[str]]]:
    walked = sorted(os.walk(root, followlinks=True), key=lambda entry: entry[0])
    return [(current, sorted(names)) for current, _dirs, names in walked
            if not depth or len(pathlib.Path(current).relative_to(root).parts) + 1 <= depth]


def _ignored(name: str, ignored: list[Any]) -> bool:
    for pattern in ignored:
        try:
            if re.search(rf"{pattern}$", name):
                return True
        except re.error:
            raise VarsDirError(f"Invalid regular expression: {pattern}") from None
    return False


def _valid(name: str, extensions: list[Any]) -> bool:
    extension = os.path.splitext(name)[1]
    return bool(extension) and extension[1:] in extensions
