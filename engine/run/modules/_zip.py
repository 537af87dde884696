"""unarchive's zip handlers (``ZipArchive``, then ``ZipZArchive``), ported from ansible-core's
module: the members listed with Python's zipfile, ``zipinfo -T -s`` (or ``unzip -Zl -T -s``)
compared with the files under ``dest`` (type, mtime, size, CRC32, permissions, owner and group)
to decide whether the archive is unpacked already, ``unzip -o`` to unpack it. Unlike the tar
handlers they support check mode: the comparison alone answers ``changed``."""

from __future__ import annotations

import binascii
import fnmatch
import grp
import os
import pwd
import re
import shutil
import stat
import subprocess
import time
import zipfile
from typing import Any

from engine.run.modules import ModuleError
from engine.run.modules._files import symbolic_mode

_LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "LC_MESSAGES": "C.UTF-8", "LANGUAGE": "C.UTF-8"}
_MODE = re.compile(r"([r-][w-][SsTtx-]){3}")
_STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})\.(\d{2})(\d{2})(\d{2})$")


def _run(command: list[str], cwd: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run(command, capture_output=True, check=False, cwd=cwd, env={**os.environ, **_LOCALE})
    return (done.returncode, done.stdout.decode("utf-8", "surrogateescape"),
            done.stderr.decode("utf-8", "surrogateescape"))


def _crc32(path: str, buffer_size: int) -> int:
    crc = binascii.crc32(b"")
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(buffer_size), b""):
            crc = binascii.crc32(block, crc)
    return crc & 0xFFFFFFFF


def _permstr_to_octal(modestr: str, umask: int) -> int:
    reverse = modestr[::-1]
    mode = 0
    for j in range(3):
        for i in range(3):
            if reverse[i + 3 * j] in "rwxst":
                mode += 2 ** (i + 3 * j)
    return mode & ~umask


def _timestamp(text: str) -> float:
    match = _STAMP.match(text)
    epoch = (1980, 1, 1, 0, 0, 0, 0, 0, 0)
    date_time: tuple[int, ...] = epoch
    if match:
        year = int(match.group(1))
        if year < 1980:
            date_time = epoch
        elif year > 2107:
            date_time = (2107, 12, 31, 23, 59, 59, 0, 0, 0)
        else:
            date_time = tuple(int(m) for m in match.groups()) + (0, 0, 0)
    return time.mktime(time.struct_time(date_time))  # type: ignore[arg-type]


class ZipHandler:
    """``ZipArchive`` (``zipinfo``) or, with ``flag`` ``-Zl``, ``ZipZArchive`` (``unzip -Zl``)."""

    def __init__(self, src: str, dest: str, params: dict[str, Any], flag: str = "") -> None:
        self.name = "ZipZArchive" if flag else "ZipArchive"
        self.src, self.dest, self.params, self.flag = src, dest, params, flag
        self.excludes: list[str] = list(params["exclude"])
        self.include_files: list[str] = list(params["include"])
        self.includes: list[str] = []
        self._files: list[str] = []
        self._crcs: dict[str, int] = {}
        self.unzip: str | None = None
        self.zipinfo: str | None = None
        self.diff = ""

    def can_handle(self) -> tuple[bool, str | None]:
        self.unzip = shutil.which("unzip")
        self.zipinfo = shutil.which("unzip" if self.flag else "zipinfo")
        missing = [name for name, path in (("unzip", self.unzip), ("unzip" if self.flag else "zipinfo",
                                                                    self.zipinfo)) if path is None]
        if missing:
            names = "' or '".join(missing)
            return False, f"Unable to find required '{names}' binary in the path."
        assert self.unzip is not None and self.zipinfo is not None
        rc, _, err = _run([self.unzip, "-l", self.src])
        if rc != 0:
            return False, f'Command "{self.unzip}" could not handle archive: {err}'
        if self.flag:
            _, out, err = _run([self.zipinfo, self.flag])
            if "zipinfo" not in out.lower():
                return False, f'Command "unzip -Z" could not handle archive: {err}'
        return True, None

    def files_in_archive(self) -> list[str]:
        if self._files:
            return self._files
        try:
            with zipfile.ZipFile(self.src) as archive:
                for member in archive.namelist():
                    if self.include_files:
                        self._files += [member for pattern in self.include_files if fnmatch.fnmatch(member, pattern)]
                    elif not any(fnmatch.fnmatch(member, pattern) for pattern in self.excludes):
                        self._files.append(member)
        except (zipfile.BadZipFile, OSError) as exc:
            raise ModuleError(f"Unable to list files in the archive: {exc}") from None
        return self._files

    def _crc(self, path: str) -> int:
        if not self._crcs:
            with zipfile.ZipFile(self.src) as archive:
                self._crcs = {item.filename: int(item.CRC) for item in archive.infolist()}
        return self._crcs[path]

    def _wanted_ids(self) -> tuple[str | int, int, str | int, int]:
        run_uid, run_gid = os.getuid(), os.getgid()
        try:
            run_owner: str | int = pwd.getpwuid(run_uid).pw_name
        except KeyError:
            run_owner = run_uid
        try:
            run_group: str | int = grp.getgrgid(run_gid).gr_name
        except KeyError:
            run_group = run_gid
        owner, group = self.params["owner"], self.params["group"]
        fut_owner, fut_uid = run_owner, run_uid
        if owner:
            try:
                entry = pwd.getpwnam(str(owner))
            except KeyError:
                try:
                    entry = pwd.getpwuid(int(owner))
                except (KeyError, ValueError):
                    entry = pwd.getpwuid(run_uid)
            fut_owner, fut_uid = entry.pw_name, entry.pw_uid
        fut_group, fut_gid = run_group, run_gid
        if group:
            try:
                gentry = grp.getgrnam(str(group))
            except KeyError:
                try:
                    gentry = grp.getgrgid(int(group))
                except (KeyError, ValueError):
                    gentry = grp.getgrgid(run_gid)
            fut_group, fut_gid = gentry.gr_name, gentry.gr_gid
        return fut_owner, fut_uid, fut_group, fut_gid

    def is_unarchived(self) -> bool:
        assert self.zipinfo is not None
        command = [self.zipinfo, *([self.flag] if self.flag else []), "-T", "-s", self.src]
        if self.excludes:
            command += ["-x", *self.excludes]
        command += self.include_files
        rc, out, _ = _run(command)
        unarchived = rc == 0
        umask = os.umask(0)
        os.umask(umask)
        fut_owner, fut_uid, fut_group, fut_gid = self._wanted_ids()
        diff = []
        for line in out.splitlines():
            pcs = line.split(None, 7)
            if len(pcs) != 8 or len(pcs[0]) not in (7, 8, 10) or len(pcs[6]) != 15:
                continue
            if pcs[0][0] not in "dl-?" or not frozenset(pcs[0][1:]) <= frozenset("rwxstah-"):
                continue
            ztype, permstr, size, path = pcs[0][0], pcs[0][1:], int(pcs[3]), pcs[7]
            if path in self.excludes:
                continue
            ftype = "d" if path.endswith("/") else "L" if ztype == "l" else "f"
            file_umask = 0
            if len(permstr) == 6:
                permstr = "rwxrwxrwx" if path.endswith("/") or permstr == "rwx---" else "rw-rw-rw-"
                file_umask = umask
            elif len(permstr) == 7:
                permstr = "rwxrwxrwx" if permstr == "rwxa---" else "rw-rw-rw-"
                file_umask = umask
            if len(permstr) != 9 or not _MODE.match(permstr):
                raise ModuleError(f"ZIP info perm format incorrect, {permstr}")
            target = os.path.join(self.dest, path)
            try:
                st = os.lstat(target)
            except OSError:
                self.includes.append(path)
                diff.append(f">{ftype}++++++.?? {path}")
                continue
            if (ftype == "d" and not stat.S_ISDIR(st.st_mode)) or (ftype == "f" and not stat.S_ISREG(st.st_mode)) \
                    or (ftype == "L" and not stat.S_ISLNK(st.st_mode)):
                if ftype == "f":
                    unarchived = False
                self.includes.append(path)
                diff.append(f"c{ftype}++++++.?? {path}")
                continue
            change = False
            itemized = list(f".{ftype}.......??")
            stamp = _timestamp(pcs[6])
            if stat.S_ISREG(st.st_mode):
                if self.params["keep_newer"]:
                    if stamp > st.st_mtime:
                        change = True
                        self.includes.append(path)
                        itemized[4] = "t"
                    elif stamp < st.st_mtime:
                        self.excludes.append(path)
                        continue
                elif stamp != st.st_mtime:
                    change = True
                    self.includes.append(path)
                    itemized[4] = "t"
                if size != st.st_size:
                    change = True
                    itemized[3] = "s"
                if _crc32(target, self.params["io_buffer_size"]) != self._crc(path):
                    change = True
                    itemized[2] = "c"
            if ftype != "L":
                mode = self.params["mode"]
                if mode:
                    if isinstance(mode, int):
                        wanted = mode
                    else:
                        try:
                            wanted = int(str(mode), 8)
                        except ValueError:
                            wanted = symbolic_mode(str(mode), stat.S_IMODE(st.st_mode), stat.S_ISDIR(st.st_mode))
                else:
                    wanted = _permstr_to_octal(permstr, 0 if ztype == "?" else file_umask)
                if wanted != stat.S_IMODE(st.st_mode):
                    change = True
                    itemized[5] = "p"
            change = self._owner_differs(st, path, fut_owner, fut_uid, fut_group, fut_gid, itemized) or change
            if change:
                if path not in self.includes:
                    self.includes.append(path)
                diff.append(f"{''.join(itemized)} {path}")
        self.diff = "".join(f"{line}\n" for line in diff)
        return unarchived and not self.includes

    def _owner_differs(self, st: os.stat_result, path: str, fut_owner: str | int, fut_uid: int,
                       fut_group: str | int, fut_gid: int, itemized: list[str]) -> bool:
        run_uid = os.getuid()
        try:
            run_owner: str | int = pwd.getpwuid(run_uid).pw_name
        except KeyError:
            run_owner = run_uid
        if run_uid != 0 and (fut_owner != run_owner or fut_uid != run_uid):
            raise ModuleError(f"Cannot change ownership of {path} to {fut_owner}, as user {run_owner}")
        changed = False
        try:
            if pwd.getpwuid(st.st_uid).pw_name != fut_owner:
                changed, itemized[6] = True, "o"
        except KeyError:
            if st.st_uid != fut_uid:
                changed, itemized[6] = True, "o"
        try:
            run_group: str | int = grp.getgrgid(os.getgid()).gr_name
        except KeyError:
            run_group = os.getgid()
        if run_uid != 0 and (fut_group != run_group or fut_gid != os.getgid()) and fut_gid not in os.getgroups():
            raise ModuleError(f"Cannot change group ownership of {path} to {fut_group}, as user {run_owner}")
        try:
            if grp.getgrgid(st.st_gid).gr_name != fut_group:
                changed, itemized[6] = True, "g"
        except KeyError:
            if st.st_gid != fut_gid:
                changed, itemized[6] = True, "g"
        return changed

    def unarchive(self) -> dict[str, Any]:
        assert self.unzip is not None
        command = [self.unzip, "-o", *self.params["extra_opts"], self.src]
        if self.excludes:
            command += ["-x", *self.excludes]
        command += self.include_files
        command += ["-d", self.dest]
        rc, out, err = _run(command)
        return {"cmd": command, "rc": rc, "out": out, "err": err}


def pick_zip(src: str, dest: str, params: dict[str, Any]) -> tuple[ZipHandler | None, list[str]]:
    """The zip handler that can unpack ``src``, or the reasons neither could (ansible tries them
    before its tar handlers)."""
    reasons = []
    for flag in ("", "-Zl"):
        handler = ZipHandler(src, dest, params, flag)
        can, reason = handler.can_handle()
        if can:
            return handler, []
        reasons.append(str(reason))
    return None, reasons
