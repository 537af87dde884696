"""``community.general.filetree`` (the ``filetree`` lookup, which ansible-core redirects to it),
ported from community.general 11's ``plugins/lookup/filetree.py``. The engine runs it only where
that collection is installed where ansible-playbook looks (engine.run.collection_lookups): there
ansible runs the collection's plugin, elsewhere it fails the lookup.

Each term is a directory found as ``LookupBase.get_basedir`` and ``path_dwim_relative`` find it
(the role's ``files/`` first), walked top-down in the file system's own order (``os.walk``); each
entry not already given by an earlier term is a dict of its properties: root, path (relative to
the root), state (file, directory or link), src (a file's absolute path, a link's target), uid,
gid, owner, group, mode ("0644"), size, mtime, ctime, and the SELinux context where SELinux is on.
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from collections.abc import Mapping
from typing import Any

from engine.loading.paths import _dwim_candidates
from engine.templating.pure_lookups import Call

try:  # as the plugin: the context only where Python's selinux bindings are there and it is on
    import selinux  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - the usual case
    selinux = None


def _basedir(call: Call) -> str:
    """``LookupBase.get_basedir``: the ``role_path`` variable, else the loader's basedir."""
    variables = getattr(call.templar, "variables", None)
    if isinstance(variables, Mapping) and "role_path" in variables:
        return str(variables["role_path"])
    return call.context.basedir


def _dwim_relative(loader_basedir: str, path: str, dirname: str, source: str) -> str:
    """``DataLoader.path_dwim_relative`` as the run finds it now (not memoised: the run writes files)."""
    from engine.loading.paths import unfrack

    if source.startswith(("/", "~")):
        return unfrack(source)
    candidate = ""
    for candidate in _dwim_candidates(loader_basedir, path, dirname, source, False):
        if os.path.exists(candidate):
            break
    return candidate


def _selinux_context(path: str) -> list[Any]:
    context: list[Any] = [None, None, None, None]
    try:
        ret = selinux.lgetfilecon_raw(path)
    except OSError:
        return context
    return ret[1].split(":", 3) if ret[0] != -1 else context


def _file_props(root: str, path: str, call: Call) -> dict[str, Any] | None:
    abspath = os.path.join(root, path)
    try:
        st = os.lstat(abspath)
    except OSError as exc:
        _warn(call, f"filetree: Error using stat() on path {abspath} ({exc})")
        return None
    ret: dict[str, Any] = {"root": root, "path": path}
    if stat.S_ISLNK(st.st_mode):
        ret["state"] = "link"
        ret["src"] = os.readlink(abspath)
    elif stat.S_ISDIR(st.st_mode):
        ret["state"] = "directory"
    elif stat.S_ISREG(st.st_mode):
        ret["state"] = "file"
        ret["src"] = abspath
    else:
        _warn(call, f"filetree: Error file type of {abspath} is not supported")
        return None
    ret["uid"] = st.st_uid
    ret["gid"] = st.st_gid
    try:
        ret["owner"] = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        ret["owner"] = st.st_uid
    try:
        ret["group"] = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        ret["group"] = st.st_gid
    ret["mode"] = f"0{stat.S_IMODE(st.st_mode):03o}"
    ret["size"] = st.st_size
    ret["mtime"] = st.st_mtime
    ret["ctime"] = st.st_ctime
    if selinux is not None and selinux.is_selinux_enabled() == 1:
        ret["seuser"], ret["serole"], ret["setype"], ret["selevel"] = _selinux_context(abspath)
    return ret


def _warn(call: Call, message: str) -> None:
    warn = getattr(call.context, "warn", None)
    if warn is not None:
        warn(message)


def lookup_filetree(terms: list[Any], kwargs: dict[str, Any], call: Call) -> list[Any]:
    basedir = _basedir(call)
    ret: list[dict[str, Any]] = []
    seen: set[str] = set()
    for term in terms:
        term = str(term)
        found = _dwim_relative(call.context.basedir, basedir, "files", os.path.dirname(term))
        path = os.path.join(found, os.path.basename(term))
        for root, dirs, files in os.walk(path, topdown=True):
            for entry in dirs + files:
                relpath = os.path.relpath(os.path.join(root, entry), path)
                if relpath not in seen:  # given by an earlier term already
                    props = _file_props(path, relpath, call)
                    if props is not None:
                        seen.add(relpath)
                        ret.append(props)
    return ret
