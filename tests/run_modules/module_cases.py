"""Shared by the offline comparison and the re-recording: lay out a case's scratch files,
snapshot what is on disk afterwards, and normalise results so two runs compare equal."""

from __future__ import annotations

import grp
import os
import pwd
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PLACEHOLDER = "<TMP>"
TEMPLATE_VARS = {"greeting": "hello", "items": ["a", "b"], "ansible_verbosity": 0}

# values that differ from run to run; compared only for presence
_VOLATILE = {
    "start",
    "end",
    "stop",
    "elapsed",
    "delta",
    "mtime",
    "atime",
    "ctime",
    "inode",
    "dev",
    "nlink",
    "blocks",
    "block_size",
    "device_type",
    "rdev",
    "version",
    "attributes",
    "charset",
    "mimetype",
    "executable",
    "readable",
    "writeable",
    "isuid",
    "isgid",
    "xusr",
    "wusr",
    "rusr",
    "xgrp",
    "wgrp",
    "rgrp",
    "xoth",
    "woth",
    "roth",
    "pw_name",
    "gr_name",
    "secontext",
}
_BACKUP_NAME = re.compile(r"\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d(\.\d+)?~")


@dataclass(frozen=True)
class Case:
    id: str
    module: str
    args: dict[str, Any]
    setup: dict[str, Any] = field(default_factory=dict)
    check: bool = False
    diff: bool = False


def lay_out(root: Path, setup: dict[str, Any]) -> None:
    """Create ``setup`` under ``root``: 'text' is a file, {'dir': True} a directory,
    {'link': target} a symlink, {'content': text, 'mode': 0o600} a file with a mode."""
    root.mkdir(parents=True, exist_ok=True)
    for relative, spec in setup.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, str):
            path.write_text(spec)
        elif spec.get("dir"):
            path.mkdir(exist_ok=True)
        elif "link" in spec:
            path.symlink_to(spec["link"])
        else:
            path.write_text(spec["content"])
            path.chmod(spec["mode"])


def snapshot(root: Path) -> dict[str, Any]:
    """Every path under ``root`` with its kind, mode and content (backup names normalised)."""
    state: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            key = _BACKUP_NAME.sub(".<BACKUP>~", str(path.relative_to(root)))
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                state[key] = {"link": os.readlink(path)}
            elif stat.S_ISDIR(info.st_mode):
                state[key] = {"dir": True, "mode": oct(stat.S_IMODE(info.st_mode))}
            else:
                state[key] = {"content": path.read_text(errors="replace"), "mode": oct(stat.S_IMODE(info.st_mode))}
    return state


def substitute(value: Any, root: str) -> Any:
    """``value`` with '{dir}' replaced by the case's scratch directory."""
    if isinstance(value, str):
        return value.replace("{dir}", root)
    if isinstance(value, list):
        return [substitute(item, root) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, root) for key, item in value.items()}
    return value


def normalise(value: Any, root: str) -> Any:
    """A result with scratch paths, timestamps, backup names and our own user ids made neutral."""
    me = {os.getuid(), os.getgid(), pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "files" and isinstance(item, list):  # find lists in the file system's order
                item = sorted(item, key=lambda found: str(found.get("path")) if isinstance(found, dict) else "")
            if key in _VOLATILE:
                out[key] = "<VOLATILE>" if item is not None else None
            elif key in ("uid", "gid", "owner", "group") and item in me:
                out[key] = "<ME>"
            else:  # paths are keys too (find's skipped_paths)
                out[key.replace(root, PLACEHOLDER) if isinstance(key, str) else key] = normalise(item, root)
        return out
    if isinstance(value, list):
        return [normalise(item, root) for item in value]
    if isinstance(value, str) and "/.ansible/tmp/" in value:
        return "<UPLOADED>"  # ansible's temporary copy of a source on the target
    if isinstance(value, str):
        return _BACKUP_NAME.sub(".<BACKUP>~", value.replace(root, PLACEHOLDER))
    return value
