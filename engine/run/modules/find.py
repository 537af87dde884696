"""find: the files (or directories, links) under some paths that match names, ages, sizes,
contents and modes; never changes anything. The results are those of ansible's module."""

from __future__ import annotations

import errno
import fnmatch
import grp
import os
import pwd
import re
import stat
import time
from typing import Any

from engine.run.modules import ModuleContext, ModuleError
from engine.run.modules._args import Arg, module_args, validate
from engine.run.modules._files import checksum, symbolic_mode
from engine.run.modules.stat import ALGORITHMS

SPEC = {
    "paths": Arg(type="list", required=True, aliases=("name", "path")),
    "patterns": Arg(type="list", default=[], aliases=("pattern",)),
    "excludes": Arg(type="list", aliases=("exclude",)),
    "contains": Arg(),
    "read_whole_file": Arg(type="bool", default=False),
    "file_type": Arg(default="file", choices=("any", "directory", "file", "link")),
    "age": Arg(),
    "age_stamp": Arg(default="mtime", choices=("atime", "ctime", "mtime")),
    "size": Arg(),
    "recurse": Arg(type="bool", default=False),
    "hidden": Arg(type="bool", default=False),
    "follow": Arg(type="bool", default=False),
    "get_checksum": Arg(type="bool", default=False),
    "checksum_algorithm": Arg(default="sha1", choices=ALGORITHMS, aliases=("checksum", "checksum_algo")),
    "use_regex": Arg(type="bool", default=False),
    "depth": Arg(type="int"),
    "mode": Arg(type="raw"),
    "exact_mode": Arg(type="bool", default=True),
    "encoding": Arg(),
    "limit": Arg(type="int"),
}
_AGE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_SIZE_UNITS = {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def _name_matches(name: str, patterns: list[str], excludes: list[str] | None, use_regex: bool) -> bool:
    def matches(pattern: str) -> bool:
        return bool(re.match(pattern, name)) if use_regex else fnmatch.fnmatch(name, pattern)

    if not patterns:
        return not excludes
    return any(matches(p) for p in patterns) and not any(matches(e) for e in excludes or ())


def _age_matches(info: os.stat_result, now: float, age: int | None, stamp: str) -> bool:
    if age is None:
        return True
    elapsed = now - getattr(info, f"st_{stamp}")
    return elapsed >= abs(age) if age >= 0 else elapsed <= abs(age)


def _size_matches(info: os.stat_result, size: int | None) -> bool:
    if size is None:
        return True
    return info.st_size >= abs(size) if size >= 0 else info.st_size <= abs(size)


def _content_matches(path: str, pattern: str | None, encoding: str | None, whole: bool) -> bool:
    if pattern is None:
        return True
    regexp = re.compile(pattern)
    try:
        with open(path, encoding=encoding) as handle:
            if whole:
                return bool(regexp.search(handle.read()))
            return any(regexp.match(line) for line in handle)
    except LookupError:
        raise
    except UnicodeDecodeError as exc:
        shown = encoding or 'None (default determined by the Python built-in function "open")'
        raise ModuleError(
            f"Failed to read the file {path} due to an encoding error. current encoding: {shown}") from exc
    except Exception:  # noqa: BLE001 - ansible's module skips a file it cannot read
        return False


def _mode_matches(info: os.stat_result, mode: str | None, exact: bool) -> bool:
    if not mode:
        return True
    try:
        wanted = int(mode, 8)
    except ValueError:
        wanted = symbolic_mode(mode, 0, False)
    current = stat.S_IMODE(info.st_mode)
    wanted = stat.S_IMODE(wanted)
    return current == wanted if exact else bool(current & wanted)


def _name_of(lookup: Any, ident: int) -> str:
    try:
        return lookup(ident)[0]
    except Exception:  # noqa: BLE001
        return ""


def statinfo(info: os.stat_result) -> dict[str, Any]:
    mode = info.st_mode
    return {
        "mode": f"{stat.S_IMODE(mode):04o}",
        "isdir": stat.S_ISDIR(mode), "ischr": stat.S_ISCHR(mode), "isblk": stat.S_ISBLK(mode),
        "isreg": stat.S_ISREG(mode), "isfifo": stat.S_ISFIFO(mode), "islnk": stat.S_ISLNK(mode),
        "issock": stat.S_ISSOCK(mode),
        "uid": info.st_uid, "gid": info.st_gid, "size": info.st_size, "inode": info.st_ino, "dev": info.st_dev,
        "nlink": info.st_nlink, "atime": info.st_atime, "mtime": info.st_mtime, "ctime": info.st_ctime,
        "gr_name": _name_of(grp.getgrgid, info.st_gid), "pw_name": _name_of(pwd.getpwuid, info.st_uid),
        "wusr": bool(mode & stat.S_IWUSR), "rusr": bool(mode & stat.S_IRUSR), "xusr": bool(mode & stat.S_IXUSR),
        "wgrp": bool(mode & stat.S_IWGRP), "rgrp": bool(mode & stat.S_IRGRP), "xgrp": bool(mode & stat.S_IXGRP),
        "woth": bool(mode & stat.S_IWOTH), "roth": bool(mode & stat.S_IROTH), "xoth": bool(mode & stat.S_IXOTH),
        "isuid": bool(mode & stat.S_ISUID), "isgid": bool(mode & stat.S_ISGID),
    }


def _quantity(text: str | None, pattern: str, units: dict[str, int], name: str) -> int | None:
    if text is None:
        return None
    match = re.match(pattern, text.lower())
    if not match:
        raise _Failure({"changed": False, "failed": True, name: text, "msg": f"failed to process {name}"})
    return int(match.group(1)) * units.get(match.group(2), 1)


class _Failure(Exception):
    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["msg"])
        self.result = result


def _selected(params: dict[str, Any], name: str, path: str, info: os.stat_result, now: float, age: int | None,
              size: int | None) -> bool:
    kind = params["file_type"]
    if kind == "file" and not stat.S_ISREG(info.st_mode) or kind == "directory" and not stat.S_ISDIR(info.st_mode) \
            or kind == "link" and not stat.S_ISLNK(info.st_mode):
        return False
    if not (_name_matches(name, params["patterns"], params["excludes"], params["use_regex"])
            and _age_matches(info, now, age, params["age_stamp"])):
        return False
    if kind == "file":
        return (_size_matches(info, size)
                and _content_matches(path, params["contains"], params["encoding"], params["read_whole_file"])
                and _mode_matches(info, params["mode"], params["exact_mode"]))
    if not _mode_matches(info, params["mode"], params["exact_mode"]):
        return False
    return kind != "any" or not stat.S_ISREG(info.st_mode) or _size_matches(info, size)


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "find") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    if params["mode"] and not isinstance(params["mode"], str):
        return {"changed": False, "failed": True, "msg": "argument 'mode' is not a string and conversion is not "
                f"allowed, value is of type {type(params['mode']).__name__}"}
    # the elements are of type path (expanded); the patterns the module fills in stay in its params,
    # which its results show as their invocation
    params["paths"] = [os.path.expanduser(os.path.expandvars(p)) if isinstance(p, str) else p
                       for p in params["paths"]]
    if not params["patterns"]:
        params["patterns"] = [".*"] if params["use_regex"] else ["*"]
    invocation = module_args(args, SPEC, params)
    try:
        age = _quantity(params["age"], r"^(-?\d+)(s|m|h|d|w)?$", _AGE_UNITS, "age")
        size = _quantity(params["size"], r"^(-?\d+)(b|k|m|g|t)?$", _SIZE_UNITS, "size")
    except _Failure as failure:
        return {**failure.result, "invocation": invocation}
    limit = params["limit"]
    if limit is not None and limit <= 0:
        return {"changed": False, "failed": True, "msg": f"limit cannot be {limit} (use None for unlimited)",
                "invocation": invocation}
    files: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    warnings: list[str] = []
    now, looked, msg = time.time(), 0, "All paths examined"

    def walk_error(exc: OSError) -> None:
        if exc.errno in (errno.EPERM, errno.EACCES, errno.ENOENT):
            skipped[str(exc.filename)] = str(exc)
            return
        raise exc

    for top in params["paths"]:
        try:
            if not os.path.isdir(top):
                raise ModuleError(f"'{top}' is not a directory")
            for root, dirs, names in os.walk(top, onerror=walk_error, followlinks=params["follow"]):
                looked += len(names) + len(dirs)
                for name in names + dirs:
                    path = os.path.normpath(os.path.join(root, name))
                    if params["depth"]:
                        base = top.rstrip(os.path.sep) + os.path.sep
                        if path.count(os.path.sep) - base.count(os.path.sep) + 1 > params["depth"]:
                            del dirs[:]
                            continue
                    if name.startswith(".") and not params["hidden"]:
                        continue
                    try:
                        info = os.lstat(path)
                    except OSError as exc:
                        warnings.append(f"Skipped entry {path!r} due to access issue: {exc}")
                        skipped[path] = str(exc)
                        continue
                    if _selected(params, name, path, info, now, age, size):
                        found = {"path": path, **statinfo(info)}
                        if params["get_checksum"] and stat.S_ISREG(info.st_mode):
                            found["checksum"] = checksum(path, params["checksum_algorithm"])
                        files.append(found)
                    if len(files) == limit:
                        msg = "Limit of matches reached"
                        break
                if not params["recurse"] or len(files) == limit:
                    break
        except Exception as exc:  # noqa: BLE001 - as ansible's module: the path is skipped with a warning
            skipped[top] = str(exc)
            warnings.append(f"Skipped '{top}' path due to this access issue: {skipped[top]}\n")
    if warnings:
        msg = "Not all paths examined, check warnings for details"
    result = {"files": files, "changed": False, "msg": msg, "matched": len(files), "examined": looked,
              "skipped_paths": skipped, "invocation": invocation}
    if warnings:
        result["warnings"] = warnings
    return result
