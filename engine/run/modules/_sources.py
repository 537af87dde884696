"""Finding a controller-side source file the way ansible's DataLoader.path_dwim_relative_stack
does: absolute as given, else ``<dir>/<subdir>/<src>`` then ``<dir>/<src>`` for each search path."""

from __future__ import annotations

import os

from engine.loading.model import Task
from engine.loading.paths import _is_role as is_role
from engine.run.modules import ModuleError, before_module
from engine.run.workdir import absolute


def not_found_message(src: str, searched: list[str] | None = None) -> str:
    """``AnsibleFileNotFound``'s text, with the places looked in for a relative ``src``."""
    where = "\nSearched in:\n\t" + "\n\t".join(searched) if searched else ""
    return (
        f"Could not find or access '{src}'{where} on the Ansible Controller.\n"
        "If you are using a module and expect the file to exist on the remote, see the remote_src option"
    )


def source_candidates(src: str, subdir: str, search_paths: list[str]) -> list[str]:
    """Where ``DataLoader.path_dwim_relative_stack`` looks for a relative ``src``, in order, the
    places listed twice as ansible lists them: for each path of the task's search path (the last
    of ``search_paths`` is the play's basedir, which ansible adds again at the end), ``subdir``
    then the path itself. ansible compares ``src``'s first part (bytes) with ``subdir`` (text),
    never equal, so ``files/x`` is looked for in ``files/files/`` too."""
    stack = search_paths[:-1] or search_paths[:1]
    found = []
    for path in stack:
        parent = os.path.dirname(path)
        if parent.endswith("/tasks") and is_role(path):
            found += [os.path.join(os.path.dirname(parent), subdir, src), os.path.join(parent, src)]
        found += [os.path.join(path, subdir, src), os.path.join(path, src)]
    basedir = search_paths[-1] if search_paths else os.getcwd()
    return found + [os.path.join(basedir, subdir, src), os.path.join(basedir, src)]


def find_source(src: str, subdir: str, search_paths: list[str], uncaught: bool = False,
                decrypt: object = True) -> str:
    """The file or directory ``src`` names; :class:`ModuleError` when there is none. ``uncaught``:
    the action lets ``_find_needle``'s AnsibleFileNotFound out (unarchive, uri), so the task
    fails with it ("Task failed: ..."), where others re-raise it as their own failure. A
    vault-encrypted file fails the task unless ``decrypt`` is off, as ``get_real_file`` does
    without vault secrets (a run with any is declined before it starts, engine.run.vault_declines)."""
    if os.path.isabs(src):
        if os.path.exists(src):
            return decryptable(src, decrypt, uncaught)
        missing = not_found_message(src)
    else:
        candidates = source_candidates(src, subdir, search_paths)
        found = next((candidate for candidate in candidates if os.path.exists(candidate)), None)
        if found is not None:
            return decryptable(found, decrypt, uncaught)
        missing = not_found_message(src, candidates)
    # the action looks for its source before it runs any module
    raise ModuleError(f"Task failed: {missing}" if uncaught else missing, before_module({}))


def decryptable(path: str, decrypt: object, uncaught: bool = True) -> str:
    """``path``, unless it is a vault-encrypted file to decrypt: the task fails, in ansible's words
    (``uncaught`` as for :func:`find_source`)."""
    from engine.booleans import boolean
    from engine.vault import is_vaulted

    if is_vaulted(path) and boolean(decrypt, strict=False):
        message = f"A vault password or secret must be specified to decrypt {path}"
        raise ModuleError(f"Task failed: {message}" if uncaught else message, before_module({}))
    return path


def source_search_paths(task: Task, basedir: str) -> list[str]:
    """Where ``task``'s controller-side sources are looked for (``Task.get_search_path``, then the
    play's basedir): its role's directory, its task file's directory, the basedir; absolute."""
    search = [task.role.path] if task.role is not None and task.role.path else []
    if task.span is not None:
        search.append(os.path.dirname(task.span.file))
    search.append(basedir)
    return list(dict.fromkeys(absolute(path) for path in search))
