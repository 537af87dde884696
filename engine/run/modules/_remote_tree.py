"""copy with ``remote_src`` and a directory ``src``: the copy module itself copies the tree on the
host, not the action file by file. It compares the trees as :class:`filecmp.dircmp` does (a file of
the same size and modification time is the same file, without reading it; the usual version-control
and cache directories are left out), copies what differs or is missing with its mode, checks the
owner and group of the whole tree (``chown_recursive``; the engine only accepts the current ones),
and reports the directory, without checksums or a diff. A directory ``src`` onto an existing file
has a checksum to compare (the file's) but none of its own: the module then moves the directory
onto the file, which fails (a link there is first replaced by an empty file)."""

from __future__ import annotations

import filecmp
import os
import shutil
import stat
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._content import make_directories, run_validate
from engine.run.modules._files import backup, check_ownership, path_facts, set_mode


def _target(src: str, dest: str) -> str:
    """The path the module reports and sets the mode of: ``src``'s name inside a ``dest`` directory
    (nothing more for a ``src/``, whose name is empty)."""
    return os.path.join(dest, os.path.basename(src)) if os.path.isdir(dest) else dest


def handles(src: str, dest: str, params: dict[str, Any]) -> bool:
    """Whether this module's copy of a directory source applies (always, for a directory)."""
    return os.path.isdir(src)


def copy_tree(src: str, dest: str, params: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    """The copy module's run for a directory ``src`` on the host (its ``main`` for ``remote_src``)."""
    mode = params["mode"]
    if mode == "preserve":
        mode = f"0{stat.S_IMODE(os.stat(src).st_mode):03o}"
    changed = False
    if dest.endswith(os.sep) and not os.path.exists(os.path.dirname(dest)):
        if ctx.check_mode:
            return {"msg": f"dest directory {os.path.dirname(dest)} would be created", "changed": True, "src": src}
        make_directories(os.path.dirname(dest), params.get("directory_mode"))
        changed = True
    target = _target(src, dest)  # (dest made just now, if it was missing)
    if os.path.islink(target) and params["follow"] and os.path.exists(target):
        target = os.path.realpath(target)
    if os.path.exists(target) and not params["force"]:
        return path_facts({"msg": "file already exists", "src": src, "dest": target, "changed": False})
    if not os.path.exists(target) and not os.path.exists(os.path.dirname(target)):
        missing = os.path.dirname(target)
        return {"changed": False, "failed": True, "msg": f"Destination directory {missing} does not exist"}
    if not os.access(os.path.dirname(target) or ".", os.W_OK):
        return {"changed": False, "failed": True, "msg": f"Destination {os.path.dirname(target)} not writable"}
    if os.path.lexists(target) and not os.path.isdir(target):
        failure = _onto_file(src, target, {**params, "mode": mode}, ctx.check_mode)
        if failure is not None:
            return failure
        changed = True
    elif os.path.isdir(dest) or not os.path.exists(dest):
        tree_src, tree_dest = src, dest
        if not src.endswith(os.sep):  # the directory itself, into dest
            tree_dest, tree_src = os.path.join(dest, os.path.basename(src)), os.path.join(src, "")
        changed = _copy_directory(tree_src, tree_dest, params["local_follow"], ctx.check_mode) or changed
        if params.get("owner") is not None or params.get("group") is not None:
            _check_tree_ownership(tree_dest, params.get("owner"), params.get("group"))
    check_ownership(target, params.get("owner"), params.get("group"))
    changed = set_mode(target, mode, ctx.check_mode, None) or changed
    return path_facts({"dest": target, "src": src, "md5sum": None, "checksum": None, "changed": changed})


def _onto_file(src: str, target: str, params: dict[str, Any], check_mode: bool) -> dict[str, Any] | None:
    """The module's way with a directory ``src`` and a ``target`` that is no directory: the
    checksums differ, so (outside check mode) it backs the target up, turns a link into an empty
    file, runs ``validate`` on the directory (its mode set first), and moves the directory onto
    the target, which the system refuses; raised as the module's unhandled error ("Could not
    replace ..."). In check mode: a change (None: no failure of the module's own)."""
    if check_mode:
        return None
    if params["backup"] and os.path.exists(target):
        backup(target)
    if os.path.islink(target):
        os.unlink(target)
        open(target, "w").close()  # noqa: SIM115 - the module leaves an empty file there
    if params.get("validate"):
        set_mode(src, params["mode"], False, None)
        if "%s" not in params["validate"]:
            return {"changed": False, "failed": True, "msg": f"validate must contain %s: {params['validate']}"}
        done = run_validate(params["validate"] % src)
        if isinstance(done, dict):
            return done
        if done.returncode != 0:
            return {"changed": False, "failed": True, "msg": "failed to validate", "exit_status": done.returncode,
                    "stdout": done.stdout, "stderr": done.stderr}
    source = os.fsencode(src)
    try:
        os.rename(source, os.fsencode(target))
    except OSError as exc:
        raise RuntimeError(f"Could not replace {target!r} with {source!r}: {exc}") from exc
    return None


def _check_tree_ownership(root: str, owner: Any, group: Any) -> None:
    """``chown_recursive`` over the copied tree (what exists of it: nothing in check mode)."""
    if not os.path.isdir(root):
        return
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [dirpath, *(os.path.join(dirpath, entry) for entry in (*dirnames, *filenames))]:
            check_ownership(name, owner, group)


def _copy_directory(src: str, dest: str, local_follow: bool | None, check_mode: bool) -> bool:
    if not os.path.exists(dest):
        if not check_mode:  # the module's paths are bytes: shutil's errors name them so
            shutil.copytree(os.fsencode(src), os.fsencode(dest), symlinks=not local_follow)
        return True
    return _copy_into(src, dest, local_follow, check_mode)


def _copy_into(src: str, dest: str, local_follow: bool | None, check_mode: bool) -> bool:
    """Copy what differs and what is missing into an existing ``dest``, then the same in each
    directory both have (``copy_diff_files``, ``copy_left_only``, ``copy_common_dirs``)."""
    compared = filecmp.dircmp(src, dest)
    changed = bool(compared.diff_files or compared.left_only)
    if not check_mode:
        for name in compared.diff_files:
            _copy_file(os.path.join(src, name), os.path.join(dest, name), local_follow)
        for name in compared.left_only:
            _copy_missing(os.path.join(src, name), os.path.join(dest, name), local_follow)
    for name in compared.common_dirs:
        changed = _copy_into(os.path.join(src, name), os.path.join(dest, name), local_follow, check_mode) or changed
    return changed


def _copy_file(source: str, target: str, local_follow: bool | None) -> None:
    """``copy_diff_files``: a link is made again only when ``local_follow`` is false, not unset."""
    if os.path.islink(source) and local_follow is False:
        os.symlink(os.readlink(source), target)
    else:
        shutil.copyfile(os.fsencode(source), os.fsencode(target))
        shutil.copymode(os.fsencode(source), os.fsencode(target))


def _copy_missing(source: str, target: str, local_follow: bool | None) -> None:
    """``copy_left_only``: a link to a directory or a file is copied (``local_follow`` true) or
    made again (false); with ``local_follow`` unset, or a link that leads nowhere, nothing is made."""
    link = os.path.islink(source)
    if link and local_follow is not None and (os.path.isdir(source) or os.path.isfile(source)):
        if not local_follow:
            os.symlink(os.readlink(source), target)
        elif os.path.isdir(source):
            shutil.copytree(os.fsencode(source), os.fsencode(target), symlinks=False)
        else:
            shutil.copyfile(os.fsencode(source), os.fsencode(target))  # a followed link: its mode is not copied
    elif not link and os.path.isfile(source):
        _copy_file(source, target, local_follow)
    elif not link and os.path.isdir(source):
        shutil.copytree(os.fsencode(source), os.fsencode(target), symlinks=not local_follow)
