"""File attributes as ansible's module_utils handle them: modes (octal or symbolic), the
path facts every file result carries, owner/group (unprivileged: only the current ones),
backups, checksums and writing a file atomically."""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import re
import shutil
import stat
import tempfile
import time
from typing import Any

from engine.run.modules import ModuleError, action_result
from engine.values import type_name_of

FILE_ARGS = ("mode", "owner", "group", "seuser", "serole", "selevel", "setype", "unsafe_writes", "attributes")
_SYMBOLIC = re.compile(r"^([ugoa]*)([-+=])([rwxXst]*|[ugo])$")
_WHO_BITS = {"u": stat.S_IRWXU | stat.S_ISUID, "g": stat.S_IRWXG | stat.S_ISGID, "o": stat.S_IRWXO | stat.S_ISVTX}


def checksum(path: str, algorithm: str = "sha1") -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(65536), b""):
            digest.update(block)
    return digest.hexdigest()


def _symbolic_bits(who: str, perms: str, current: int, is_dir: bool) -> int:
    if perms in ("u", "g", "o"):  # copy another class's bits, e.g. g=u
        shift = {"u": 6, "g": 3, "o": 0}[perms]
        source = (current >> shift) & 7
        return sum(source << {"u": 6, "g": 3, "o": 0}[w] for w in who)
    bits = 0
    for w in who:
        shift = {"u": 6, "g": 3, "o": 0}[w]
        for perm in perms:
            if perm in "rwx":
                bits |= {"r": 4, "w": 2, "x": 1}[perm] << shift
            elif perm == "X" and (is_dir or current & 0o111):
                bits |= 1 << shift
            elif perm == "s" and w in "ug":
                bits |= stat.S_ISUID if w == "u" else stat.S_ISGID
            elif perm == "t" and w == "o":
                bits |= stat.S_ISVTX
    return bits


def _apply_symbolic(mode: str, current: int, is_dir: bool) -> int:
    new = current
    for clause in mode.split(","):
        match = _SYMBOLIC.match(clause)
        if not match:
            raise ModuleError(f"bad symbolic permission for mode: {mode}")
        who, operator, perms = match.groups()
        if who in ("", "a"):
            who = "ugo"
        bits = _symbolic_bits(who, perms, new, is_dir)
        if operator == "+":
            new |= bits
        elif operator == "-":
            new &= ~bits
        else:
            for w in who:
                new &= ~_WHO_BITS[w]
            new |= bits
    return new


def wanted_mode(mode: Any, path: str) -> int | None:
    """The permission bits ``mode`` asks for on the existing ``path`` (None: leave as is)."""
    if mode is None or mode == "preserve":
        return None
    if isinstance(mode, int) and not isinstance(mode, bool):
        return mode
    text = str(mode)
    try:  # set_mode_if_different's int(mode, 8): a 0o prefix, spaces around and _ between digits too
        if isinstance(mode, str | bool):  # int() takes no base with a value that is no text
            return int(text, 8)
    except ValueError:
        pass
    info = os.lstat(path)
    try:
        if not isinstance(mode, str | bool):  # a list, a float: _symbolic_mode_to_octal splits it
            raise ModuleError(f"{type_name_of(mode)!r} object has no attribute 'split'")
        return _apply_symbolic(text, stat.S_IMODE(info.st_mode), stat.S_ISDIR(info.st_mode))
    except ModuleError as exc:  # set_mode_if_different's fail_json: the path's facts, the error as details
        raise ModuleError("mode must be in octal or symbolic form",
                          path_facts({"path": path, "details": str(exc)})) from None


def octal(bits: int) -> str:
    return f"0{bits:03o}"


def set_mode(path: str, mode: Any, check_mode: bool, diff: dict[str, Any] | None) -> bool:
    """Give ``path`` the wanted mode (not in check mode); record before/after in ``diff``."""
    if mode is None or not os.path.lexists(path):
        return False
    current = stat.S_IMODE(os.lstat(path).st_mode)
    wanted = wanted_mode(mode, path)
    if wanted is None or wanted == current:
        return False
    if diff is not None:
        diff.setdefault("before", {})["mode"] = octal(current)
        diff.setdefault("after", {})["mode"] = octal(wanted)
    if check_mode:
        return True
    if os.path.islink(path):  # set_mode_if_different: a link's own mode stays, so nothing changed
        return False
    os.chmod(path, wanted)
    return True


def unknown_owner(owner: Any, group: Any) -> str | None:
    """The failure of ``set_owner_if_different`` / ``set_group_if_different`` for an owner or
    group this machine lacks (looked up in that order), or None."""
    for wanted, kind in ((owner, "owner"), (group, "group")):
        if wanted is None or str(wanted).isdigit():
            continue
        try:
            (pwd.getpwnam if kind == "owner" else grp.getgrnam)(str(wanted))
        except KeyError:
            return f"chown failed: failed to look up user {wanted}" if kind == "owner" else \
                f"chgrp failed: failed to look up group {wanted}"
    return None


def check_ownership(path: str, owner: Any, group: Any) -> None:
    """The bundled engine runs unprivileged: it applies owner/group only when they already
    hold (or name the current user), and refuses any other change rather than pretend."""
    if missing := unknown_owner(owner, group):
        raise ModuleError(missing)
    for wanted, kind in ((owner, "owner"), (group, "group")):
        if wanted is None:
            continue
        info = os.lstat(path) if os.path.lexists(path) else None
        current_id = (
            (info.st_uid if kind == "owner" else info.st_gid)
            if info
            else (os.getuid() if kind == "owner" else os.getgid())
        )
        lookup = pwd.getpwnam if kind == "owner" else grp.getgrnam
        wanted_id = int(wanted) if str(wanted).isdigit() else lookup(str(wanted))[2]
        if wanted_id != current_id:
            raise ModuleError(
                f"cannot set {kind} of {path} to {wanted}: the bundled engine runs unprivileged "
                "and only accepts the current owner and group"
            )


def path_facts(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` plus what ansible's add_path_info adds for its path (or dest) when it exists."""
    path = result.get("path", result.get("dest"))
    if path is None or not os.path.exists(path):
        return result
    info = os.lstat(path)
    try:
        owner = pwd.getpwuid(info.st_uid)[0]
    except KeyError:
        owner = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid)[0]
    except KeyError:
        group = str(info.st_gid)
    if stat.S_ISLNK(info.st_mode):
        state = "link"
    elif stat.S_ISDIR(info.st_mode):
        state = "directory"
    elif os.stat(path).st_nlink > 1:
        state = "hard"
    else:
        state = "file"
    result.update(
        uid=info.st_uid,
        gid=info.st_gid,
        owner=owner,
        group=group,
        mode=octal(stat.S_IMODE(info.st_mode)),
        state=state,
        size=info.st_size,
    )
    return result


def backup(path: str) -> str:
    """Copy ``path`` beside itself under ansible's backup name; return that name."""
    stamp = time.strftime("%Y-%m-%d@%H:%M:%S", time.localtime(time.time()))
    name = f"{path}.{os.getpid()}.{stamp}~"
    shutil.copy2(path, name)
    return name


def default_file_mode() -> int:
    """The mode a new file gets under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` keeping its mode (a new file gets the umask's mode)."""
    mode = stat.S_IMODE(os.stat(path).st_mode) if os.path.exists(path) else default_file_mode()
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".ansible_tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def remote_stat_failure(path: str) -> dict[str, Any] | None:
    """The failure of ansible's action plugins when their remote ``stat`` of ``path`` fails for
    another reason than a missing path (a component that is a file: "Not a directory"); None when
    the path can be looked at. The action raises, hence ansible's "Task failed: " prefix."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return action_result({"changed": False, "failed": True,
                              "msg": f"Task failed: Failed to get information on remote file ({path}): {exc.strerror}"})
    return None


def file_attributes(path: str, params: dict[str, Any], check_mode: bool, changed: bool, msg: str,
                    diff: dict[str, Any] | None = None) -> tuple[str, bool]:
    """The modules' ``check_file_attrs``: apply the file arguments (the mode; owner and group were
    checked before) and add ansible's words to ``msg`` when they changed something."""
    if set_mode(path, params.get("mode"), check_mode, diff):
        msg = (msg + " and " if changed else msg) + "ownership, perms or SE linux context changed"
        changed = True
    return msg, changed


def symbolic_mode(mode: str, current: int, is_dir: bool) -> int:
    """The bits a symbolic ``mode`` (u+x,g=r...) makes of ``current``."""
    return _apply_symbolic(mode, current, is_dir)
