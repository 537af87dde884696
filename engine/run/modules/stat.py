"""stat: facts about a path, with the keys ansible's stat module returns."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat as stat_bits
import subprocess
from typing import Any

from engine.run.modules import ModuleContext
from engine.run.modules._args import Arg, module_args, validate
from engine.run.modules._files import checksum

ALGORITHMS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512")
SPEC = {
    "path": Arg(type="path", required=True, aliases=("dest", "name")),
    "follow": Arg(type="bool", default=False),
    "get_checksum": Arg(type="bool", default=True),
    "get_mime": Arg(type="bool", default=True, aliases=("mime", "mime_type", "mime-type")),
    "get_attributes": Arg(type="bool", default=True, aliases=("attr", "attributes")),
    "checksum_algorithm": Arg(default="sha1", choices=ALGORITHMS, aliases=("checksum", "checksum_algo")),
}


def _name(lookup: Any, ident: int) -> str | None:
    try:
        return lookup(ident)[0]
    except KeyError:
        return None


def _facts(path: str, info: os.stat_result) -> dict[str, Any]:
    mode = info.st_mode
    facts: dict[str, Any] = {
        "exists": True,
        "path": path,
        "mode": f"{stat_bits.S_IMODE(mode):04o}",
        "isdir": stat_bits.S_ISDIR(mode),
        "ischr": stat_bits.S_ISCHR(mode),
        "isblk": stat_bits.S_ISBLK(mode),
        "isreg": stat_bits.S_ISREG(mode),
        "isfifo": stat_bits.S_ISFIFO(mode),
        "islnk": stat_bits.S_ISLNK(mode),
        "issock": stat_bits.S_ISSOCK(mode),
        "uid": info.st_uid,
        "gid": info.st_gid,
        "size": info.st_size,
        "inode": info.st_ino,
        "dev": info.st_dev,
        "nlink": info.st_nlink,
        "atime": info.st_atime,
        "mtime": info.st_mtime,
        "ctime": info.st_ctime,
        "wusr": bool(mode & stat_bits.S_IWUSR),
        "rusr": bool(mode & stat_bits.S_IRUSR),
        "xusr": bool(mode & stat_bits.S_IXUSR),
        "wgrp": bool(mode & stat_bits.S_IWGRP),
        "rgrp": bool(mode & stat_bits.S_IRGRP),
        "xgrp": bool(mode & stat_bits.S_IXGRP),
        "woth": bool(mode & stat_bits.S_IWOTH),
        "roth": bool(mode & stat_bits.S_IROTH),
        "xoth": bool(mode & stat_bits.S_IXOTH),
        "isuid": bool(mode & stat_bits.S_ISUID),
        "isgid": bool(mode & stat_bits.S_ISGID),
        "blocks": info.st_blocks,
        "block_size": info.st_blksize,
        "device_type": info.st_rdev,
        "readable": os.access(path, os.R_OK),
        "writeable": os.access(path, os.W_OK),
        "executable": os.access(path, os.X_OK),
        "pw_name": _name(pwd.getpwuid, info.st_uid),
        "gr_name": _name(grp.getgrgid, info.st_gid),
    }
    return facts


_ATTRIBUTE_NAMES = {
    "A": "noatime",
    "a": "append",
    "c": "compressed",
    "C": "nocow",
    "d": "nodump",
    "D": "dirsync",
    "e": "extents",
    "E": "encrypted",
    "h": "blocksize",
    "i": "immutable",
    "I": "indexed",
    "j": "journalled",
    "N": "inline",
    "s": "zero",
    "S": "synchronous",
    "t": "notail",
    "T": "blockroot",
    "u": "undelete",
    "X": "compressedraw",
    "Z": "compresseddirty",
}


def file_attributes(path: str) -> dict[str, Any]:
    """lsattr's flags, as ansible reads them (empty when lsattr is missing or fails, e.g. on a symlink)."""
    attributes: dict[str, Any] = {"version": None, "attributes": [], "attr_flags": ""}
    lsattr = shutil.which("lsattr")
    if lsattr:
        done = subprocess.run([lsattr, "-vd", path], capture_output=True, text=True, check=False)
        fields = done.stdout.split()
        if done.returncode == 0 and len(fields) >= 2:
            flags = fields[1].replace("-", "").strip()
            attributes.update(
                version=fields[0].strip(),
                attr_flags=flags,
                attributes=[_ATTRIBUTE_NAMES[f] for f in flags if f in _ATTRIBUTE_NAMES],
            )
    return attributes


def _mime(path: str) -> tuple[str, str]:
    """What the module asks ``file --mime-type --mime-encoding`` (found as get_bin_path finds it);
    "unknown" both without it or when it fails."""
    import shutil
    import subprocess

    search = os.pathsep.join([os.environ.get("PATH", ""), "/sbin", "/usr/sbin", "/usr/local/sbin"])
    program = shutil.which("file", path=search)
    if program is None:
        return "unknown", "unknown"
    try:
        done = subprocess.run([program, "--mime-type", "--mime-encoding", path], capture_output=True, text=True,
                              errors="surrogateescape", check=False)
        if done.returncode == 0:
            mimetype, charset = done.stdout.rsplit(":", 1)[1].split(";")
            return mimetype.strip(), charset.split("=")[1].strip()
    except (OSError, ValueError, IndexError):
        pass
    return "unknown", "unknown"


NAMED = True  # its argument messages name the module as the task wrote it (AnsibleModule's _name)


def run(args: dict[str, Any], ctx: ModuleContext, action: str = "stat") -> dict[str, Any]:
    params = validate(action, args, SPEC)
    invocation = module_args(args, SPEC, params)  # before the module works on its params
    return {**_stat(params), "invocation": invocation}


def _stat(params: dict[str, Any]) -> dict[str, Any]:
    path = params["path"]
    try:
        info = os.stat(path) if params["follow"] else os.lstat(path)
    except FileNotFoundError:
        return {"changed": False, "stat": {"exists": False}}
    except OSError as exc:  # fail_json(msg=e.strerror) inside the handler: the error is its exception
        from engine.run.modules import module_exception

        return {"changed": False, "failed": True, "msg": exc.strerror,
                **module_exception(exc.strerror, exc, as_bytes=True)}
    facts = _facts(path, info)
    if facts["islnk"]:
        facts["lnk_source"] = os.path.realpath(path)
        facts["lnk_target"] = os.readlink(path)
    if facts["isreg"] and params["get_checksum"] and os.access(path, os.R_OK):
        facts["checksum"] = checksum(path, params["checksum_algorithm"])
    if params["get_mime"]:
        facts["mimetype"], facts["charset"] = _mime(path)
    if params["get_attributes"]:
        facts.update(file_attributes(path))
    return {"changed": False, "stat": facts}
