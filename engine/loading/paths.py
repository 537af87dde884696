"""File and role lookup, ported from ansible-core's DataLoader and RoleDefinition.

The search orders matter: they decide which file an ``import_tasks: x.yml`` reaches and
therefore which tasks are listed. Kept side-effect free (existence checks only).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache

from engine.lazy_regex import LazyRegex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from engine.loading.model import Frame
    from engine.span import Span

# File-system questions are asked many times over for the same paths while resolving a
# repository; they are memoised for one resolution (see clear_cache). An editor's server clears
# them only when files change on disk, while the paths its buffers name change with every edit
# (``import_tasks: "{{ x }}.yml"`` typed key by key): each keeps the most recently asked paths,
# 40 times what indexing debops asks (at most 2,000 paths per question).
PATHS_KEPT = 1 << 16
exists = lru_cache(maxsize=PATHS_KEPT)(os.path.exists)
isfile = lru_cache(maxsize=PATHS_KEPT)(os.path.isfile)
isdir = lru_cache(maxsize=PATHS_KEPT)(os.path.isdir)


@lru_cache(maxsize=PATHS_KEPT)
def realpath(path: str) -> str:
    """``os.path.realpath``. A path without ``..`` whose directories (memoised) and itself are no
    symbolic links is its own absolute path: one ``lstat`` instead of one per component, which
    realpath makes (seven system calls per task file of a role)."""
    absolute = os.path.abspath(path)
    if ".." in path.split(os.sep) or absolute.startswith("//") or absolute.count(os.sep) > _DEPTH_MEMOISED \
            or not _without_links(os.path.dirname(absolute)) or os.path.islink(absolute):
        return os.path.realpath(path)  # normpath keeps a leading "//" that realpath does not
    return absolute


_DEPTH_MEMOISED = 64
"""Directories deeper than this (a path an editor buffer can hold, thousands of levels) are left
to os.path.realpath, which walks them without recursing."""


@lru_cache(maxsize=PATHS_KEPT)
def _without_links(directory: str) -> bool:
    """No component of the absolute, normalised ``directory`` is a symbolic link."""
    parent = os.path.dirname(directory)
    return parent == directory or (not os.path.islink(directory) and _without_links(parent))


@lru_cache(maxsize=PATHS_KEPT)
def unreadable_dir(directory: str) -> bool:
    """A directory that exists but cannot be listed or entered."""
    return isdir(directory) and not os.access(directory, os.R_OK | os.X_OK)


_CLEARED_TOO: list[Any] = []  # other modules' memoised answers about the file system


def cleared_with_file_system(cached: Any) -> Any:
    """Register a memoised function (``functools.cache``) whose answers :func:`clear_cache` forgets."""
    _CLEARED_TOO.append(cached)
    return cached


def clear_cache() -> None:
    """Forget memoised file-system answers (call when files may have changed)."""
    for cached in (exists, isfile, isdir, realpath, _without_links, unreadable_dir, _is_role, path_dwim_relative,
                   *_CLEARED_TOO):
        cached.cache_clear()


RE_TASKS = LazyRegex(r"(?:^|/)+tasks/?$")
YAML_EXTENSIONS = (".yml", ".yaml", ".json")


def display_path(path: str) -> str:
    """A path as shown to the user: relative to the current directory when it is below it."""
    if not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def unfrack(path: str) -> str:
    """ansible's ``unfrackpath(follow=False)``: expand ``~`` and variables, make absolute, normalise."""
    return os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(path))))


def path_dwim(basedir: str, given: str) -> str:
    given = given.strip("'\"") if len(given) > 1 and given[0] == given[-1] and given[0] in "'\"" else given
    if given.startswith(("/", "~")):
        return unfrack(given)
    return unfrack(os.path.join(basedir, given))


@lru_cache(maxsize=PATHS_KEPT)
def _is_role(path: str) -> bool:
    """ansible's imperfect role detection (``DataLoader._is_role``)."""
    upath = unfrack(path)
    parent = os.path.dirname(path)
    untasked = [os.path.join(path, name) for name in ("main.yml", "main.yaml", "main")]
    tasked = [
        os.path.join(base, sub, name)
        for base in (upath, parent)
        for sub in ("tasks", "meta")
        for name in ("main.yml", "main.yaml", "main")
    ]
    return bool(RE_TASKS.search(path) and any(map(exists, untasked))) or any(map(exists, tasked))


@lru_cache(maxsize=PATHS_KEPT)
def path_dwim_relative(loader_basedir: str, path: str, dirname: str, source: str, is_role: bool = False) -> str:
    """``DataLoader.path_dwim_relative``: the first existing candidate, else the last tried."""
    if source.startswith(("/", "~")):
        return unfrack(source)
    candidate = ""
    for candidate in _dwim_candidates(loader_basedir, path, dirname, source, is_role):
        if exists(candidate):
            return candidate
    return candidate


def _dwim_candidates(loader_basedir: str, path: str, dirname: str, source: str, is_role: bool) -> Iterator[str]:
    """``path_dwim_relative``'s search order, made only as far as it is needed."""
    yield os.path.join(path, dirname, source)
    basedir = unfrack(path)
    if not is_role:
        is_role = _is_role(path)
    if is_role and RE_TASKS.search(path):
        basedir = unfrack(os.path.dirname(path))
    yield unfrack(os.path.join(basedir, dirname, source))
    if is_role and not source.endswith(dirname):
        yield unfrack(os.path.join(basedir, "tasks", source))
    yield unfrack(os.path.join(dirname, source))
    yield unfrack(os.path.join(basedir, source))
    yield path_dwim(loader_basedir, os.path.join(dirname, source))
    yield path_dwim(loader_basedir, source)


def find_role_file(role_path: str, subdir: str, main: str | None) -> tuple[str | None, bool]:
    """Find ``tasks/main.yml`` (or ``tasks/<main>``) like ``Role._load_role_yaml``.

    Returns ``(path, missing_requested)``: ``missing_requested`` is true when ``main`` was
    asked for explicitly (``tasks_from``) and nothing matched, which ansible treats as an error.
    """
    directory = os.path.join(role_path, subdir)
    if not isdir(directory):  # ansible looks for tasks_from only inside an existing tasks/
        return None, False
    if main is None:
        name, extensions = "main", [*YAML_EXTENSIONS, ""]
    else:
        name, extensions = main, ["", *YAML_EXTENSIONS]
    base = os.path.join(directory, name)
    for ext in extensions:
        candidate = base + ext
        if exists(candidate):
            if isdir(candidate):
                continue
            return candidate, False
    return None, main is not None


def find_role_var_files(role_path: str, subdir: str, main: str | None) -> list[str]:
    """The files of a role's ``defaults`` or ``vars`` (``Role._load_role_yaml(allow_dir=True)``):
    ``main.yml`` (or ``<main>``), or every file below a ``main/`` directory, in name order
    (hidden and ``~`` backup files left out, sub-directories walked), combined in that order."""
    directory = os.path.join(role_path, subdir)
    if not isdir(directory):
        return []
    extensions = [".yml", ".yaml", ".json"]
    if main is None:
        name = "main"
        extensions.append("")
    else:
        name = main
        extensions.insert(0, "")
    base = os.path.join(directory, name)
    for ext in extensions:
        candidate = base + ext
        if exists(candidate):
            return _directory_vars_files(candidate, extensions) if isdir(candidate) else [candidate]
    return []


def load_role_vars(load: Callable[[str], Any], role_path: str, subdir: str, main: str | None,
                   merge: bool = False) -> dict[str, Any]:
    """A role's ``defaults`` or ``vars`` data, its files combined in order as ansible does
    (``combine_vars``, recursively with ``hash_behaviour = merge``)."""
    from engine.inventory.combine import combine_vars

    data: Any = None
    for path in find_role_var_files(role_path, subdir, main):
        new = load(path)
        if new:
            data = combine_vars(dict(data), new, merge) if isinstance(data, Mapping) and isinstance(new, Mapping) \
                else new
    return dict(data) if isinstance(data, Mapping) else {}


def _directory_vars_files(path: str, extensions: list[str]) -> list[str]:
    """``DataLoader._get_dir_vars_files``."""
    found: list[str] = []
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return found
    for name in names:
        if name.startswith(".") or name.endswith("~"):
            continue
        ext = os.path.splitext(name)[1]
        full = os.path.join(path, name)
        if os.path.isdir(full) and not ext:
            found += _directory_vars_files(full, extensions)
        elif os.path.isfile(full) and (not ext or ext in extensions):
            found.append(full)
    return found


def role_search_paths(basedir: str, roles_path: list[str], role_basedir: str | None) -> list[str]:
    paths = [os.path.join(basedir, "roles"), *roles_path]
    if role_basedir:
        paths.append(role_basedir)
    paths.append(basedir)
    return paths


def find_role(name: str, basedir: str, roles_path: list[str], role_basedir: str | None) -> tuple[str | None, list[str]]:
    """Locate a role directory as ``RoleDefinition._load_role_path`` does; also return what was searched."""
    searched = role_search_paths(basedir, roles_path, role_basedir)
    for path in searched:
        candidate = unfrack(os.path.join(path, name))
        if exists(candidate):
            return realpath(candidate), searched
    candidate = unfrack(name)
    if exists(candidate):
        return realpath(candidate), searched
    return None, searched


def include_vars_candidates(role_path: str | None, task_file: str | None, target: str, basedir: str) -> list[str]:
    """Where ``include_vars: TARGET`` looks, in order (``DataLoader.path_dwim_relative_stack`` over
    ``Task.get_search_path()``): for the role's path, then the task file's directory, its
    ``vars/`` then itself, then the playbook directory's the same way. ansible compares TARGET's
    first part (bytes) with "vars" (text), never equal, so "vars/x.yml" is looked for in
    ``vars/vars/`` too. None for an absolute TARGET, which is only itself."""
    if target.startswith(("~", os.path.sep)):
        return []
    stack = [role_path] if role_path else []
    if task_file is not None and os.path.dirname(task_file) not in stack:
        stack.append(os.path.dirname(task_file))
    found = []
    for path in stack:
        upath = os.path.normpath(os.path.abspath(path))
        parent = os.path.dirname(upath)
        if role_path and parent.endswith("/tasks"):
            found += [os.path.join(os.path.dirname(parent), "vars", target), os.path.join(parent, target)]
        found += [os.path.join(upath, "vars", target), os.path.join(upath, target)]
    return found + [os.path.join(basedir, "vars", target), os.path.join(basedir, target)]


def include_vars_path(role_path: str | None, task_file: str | None, target: str, basedir: str) -> str | None:
    """The file ``include_vars: TARGET`` reads (see :func:`include_vars_candidates`)."""
    if target.startswith(("~", os.path.sep)):
        absolute = os.path.normpath(os.path.expanduser(target))
        return absolute if isfile(absolute) else None
    return next((c for c in include_vars_candidates(role_path, task_file, target, basedir) if isfile(c)), None)


def keyword_span(frame: Frame, keyword: str) -> Span | None:
    """Where ``keyword`` is written on ``frame`` (the frame itself when it is not)."""
    return frame.keyword_spans.get(keyword) or frame.span


def where(span: Span | None) -> str:
    """``file:line`` for messages, the file shortened to its path relative to the cwd."""
    if span is None:
        return "<unknown>"
    return f"{display_path(span.file)}:{span.line + 1}"
