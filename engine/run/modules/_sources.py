"""Finding a controller-side source file the way ansible's DataLoader.path_dwim_relative_stack
does: absolute as given, else ``<dir>/<subdir>/<src>`` then ``<dir>/<src>`` for each search path."""

from __future__ import annotations

import os

from engine.loading.model import Task
from engine.run.modules import ModuleError
from engine.run.workdir import absolute


def not_found_message(src: str) -> str:
    return (
        f"Could not find or access '{src}' on the Ansible Controller.\n"
        "If you are using a module and expect the file to exist on the remote, see the remote_src option"
    )


def find_source(src: str, subdir: str, search_paths: list[str]) -> str:
    """The file or directory ``src`` names; :class:`ModuleError` when there is none."""
    if os.path.isabs(src):
        if os.path.exists(src):
            return src
        raise ModuleError(not_found_message(src))
    for base in search_paths:
        for candidate in (os.path.join(base, subdir, src), os.path.join(base, src)):
            if os.path.exists(candidate):
                return candidate
    raise ModuleError(not_found_message(src))


def source_search_paths(task: Task, basedir: str) -> list[str]:
    """Where ``task``'s controller-side sources are looked for (``Task.get_search_path``, then the
    play's basedir): its role's directory, its task file's directory, the basedir; absolute."""
    search = [task.role.path] if task.role is not None and task.role.path else []
    if task.span is not None:
        search.append(os.path.dirname(task.span.file))
    search.append(basedir)
    return list(dict.fromkeys(absolute(path) for path in search))
