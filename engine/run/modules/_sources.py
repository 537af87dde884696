"""Finding a controller-side source file the way ansible's DataLoader.path_dwim_relative_stack
does: absolute as given, else ``<dir>/<subdir>/<src>`` then ``<dir>/<src>`` for each search path."""

from __future__ import annotations

import os

from engine.run.modules import ModuleError


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
