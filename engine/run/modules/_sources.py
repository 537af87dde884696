"""Finding a controller-side source file the way ansible's DataLoader.path_dwim_relative_stack
does: absolute as given, else ``<dir>/<subdir>/<src>`` then ``<dir>/<src>`` for each search path."""

from __future__ import annotations

import os

from engine.loading.model import Task
from engine.run.modules import ModuleError
from engine.run.workdir import absolute


def not_found_message(src: str, searched: list[str] | None = None) -> str:
    return (
        f"Could not find or access '{src}'" + ("\nSearched in:\n\t" + "\n\t".join(searched) if searched else "")
        + " on the Ansible Controller.\n"
        "If you are using a module and expect the file to exist on the remote, see the remote_src option"
    )


def source_candidates(src: str, subdir: str, search_paths: list[str]) -> list[str]:
    """Where ``path_dwim_relative_stack`` looks, in order and with its repeats: under each path of
    ``ansible_search_path`` (``search_paths`` less the basedir that ends it, unless that is all),
    then under the basedir, ``subdir`` first each time."""
    stack = search_paths[:-1] or search_paths
    bases = [*stack, search_paths[-1]] if search_paths else ["."]
    return [candidate for base in bases for candidate in (os.path.join(base, subdir, src), os.path.join(base, src))]


def find_source(src: str, subdir: str, search_paths: list[str]) -> str:
    """The file or directory ``src`` names; :class:`ModuleError` when there is none."""
    if os.path.isabs(src):
        if os.path.exists(src):
            return src
        raise ModuleError(not_found_message(src))
    candidates = source_candidates(src, subdir, search_paths)
    found = next((candidate for candidate in candidates if os.path.exists(candidate)), None)
    if found is None:
        raise ModuleError(not_found_message(src, candidates))
    return found


def source_search_paths(task: Task, basedir: str) -> list[str]:
    """Where ``task``'s controller-side sources are looked for (``Task.get_search_path``, then the
    play's basedir): its role's directory, its task file's directory, the basedir; absolute."""
    search = [task.role.path] if task.role is not None and task.role.path else []
    if task.span is not None:
        search.append(os.path.dirname(task.span.file))
    search.append(basedir)
    return list(dict.fromkeys(absolute(path) for path in search))
