"""archive: ``community.general.archive`` (ansible-core routes ``archive`` to it), ported from the
collection's module: files, directory trees and globs under ``path`` (less ``exclude_path`` and
``exclusion_patterns``) into a tar (plain, gz, bz2, xz) or zip archive at ``dest``, or a single
file compressed as it is (gz, bz2, xz) beside itself. ``changed`` compares the members' checksums
before and after (the compressed bytes carry a time stamp); ``remove`` deletes what was archived;
in check mode nothing is written and the answer is whether it would be."""

from __future__ import annotations

import bz2
import glob
import gzip
import io
import lzma
import os
import re
import shutil
import tarfile
import zipfile
from fnmatch import fnmatch
from typing import IO, Any
from zlib import crc32

from engine.run.modules import ModuleContext
from engine.run.modules._args import FILE_COMMON_ARGS, Arg, validate
from engine.run.modules._files import check_ownership, path_facts, set_mode

SPEC = {
    "path": Arg(type="list", required=True),
    "format": Arg(default="gz", choices=("bz2", "gz", "tar", "xz", "zip")),
    "dest": Arg(type="path"),
    "exclude_path": Arg(type="list", default=[]),
    "exclusion_patterns": Arg(type="list"),
    "force_archive": Arg(type="bool", default=False),
    "remove": Arg(type="bool", default=False),
    "mode": Arg(type="raw"),
    **FILE_COMMON_ARGS,
}
ARCHIVED, COMPRESSED, INCOMPLETE, ABSENT = "archive", "compress", "incomplete", "absent"


class _Fail(Exception):
    """``module.fail_json``: the result to return."""

    def __init__(self, **result: Any) -> None:
        super().__init__(result.get("msg"))
        self.result = {"changed": False, "failed": True, **result}


def _expand(path: str) -> str:
    return os.path.expanduser(os.path.expandvars(path))


def common_path(paths: list[str]) -> str:
    return os.path.join(os.path.dirname(os.path.commonprefix([os.path.join(os.path.dirname(p), "") for p in paths])),
                        "")


def expand_paths(paths: list[str]) -> tuple[list[str], bool]:
    expanded: list[str] = []
    globby = False
    for path in paths:
        if "*" in path or "?" in path:
            expanded += glob.glob(path)
            globby = True
        else:
            expanded.append(path)
    return expanded, globby


def is_archive(path: str) -> bool:
    return bool(re.search(r"\.(tar|tar\.(gz|bz2|xz)|tgz|tbz2|zip)$", os.path.basename(path), re.IGNORECASE))


def strip_prefix(prefix: str, text: str) -> str:
    return text[len(prefix):] if text.startswith(prefix) else text


class Archive:
    def __init__(self, params: dict[str, Any]) -> None:
        self.destination: str | None = params["dest"] or None
        self.exclusion_patterns: list[str] = [_expand(p) for p in params["exclusion_patterns"] or []]
        self.format: str = params["format"]
        self.must_archive: bool = params["force_archive"]
        self.remove: bool = params["remove"]
        self.changed = False
        self.destination_state = ABSENT
        self.errors: list[str] = []
        self.successes: list[str] = []
        self.targets: list[str] = []
        self.not_found: list[str] = []
        paths = [_expand(p) for p in params["path"]]
        self.expanded_paths, has_globs = expand_paths(paths)
        self.expanded_exclude_paths = expand_paths([_expand(p) for p in params["exclude_path"]])[0]
        self.paths = sorted(set(self.expanded_paths) - set(self.expanded_exclude_paths))
        if not self.paths:
            raise _Fail(path=", ".join(paths), expanded_paths=", ".join(self.expanded_paths),
                        expanded_exclude_paths=", ".join(self.expanded_exclude_paths),
                        msg="Error, no source paths were found")
        self.root = common_path(self.paths)
        if not self.must_archive:
            self.must_archive = any([has_globs, os.path.isdir(self.paths[0]), len(self.paths) > 1])
        if not self.destination and not self.must_archive:
            self.destination = f"{self.paths[0]}.{self.format}"
        if self.must_archive and not self.destination:
            raise _Fail(dest="None", path=", ".join(paths),  # the module shows None as text
                        msg='Error, must specify "dest" when archiving multiple files or trees')
        if self.remove:
            for path in self.paths:
                if os.path.isdir(path) and self.dest.startswith(os.path.join(path, "")):
                    raise _Fail(path=", ".join(self.paths),
                                msg="Error, created archive can not be contained in source paths when remove=true")
        self.original_checksums = self.destination_checksums()
        self.original_size = self.destination_size()
        self.file: Any = None
        self.buffer: io.BytesIO | None = None

    @property
    def dest(self) -> str:
        assert self.destination is not None
        return self.destination

    # -- the archive file -------------------------------------------------------------------
    def open(self) -> None:
        if self.format == "zip":
            self.file = zipfile.ZipFile(self.dest, "w", zipfile.ZIP_DEFLATED, True)
        elif self.format in ("gz", "bz2"):
            self.file = tarfile.open(self.dest, "w|" + self.format)
        elif self.format == "xz":
            self.buffer = io.BytesIO()
            self.file = tarfile.open(fileobj=self.buffer, mode="w")
        else:
            self.file = tarfile.open(self.dest, "w")

    def close(self) -> None:
        self.file.close()
        if self.format == "xz" and self.buffer is not None:
            with lzma.open(self.dest, "wb") as out:
                out.write(self.buffer.getvalue())
            self.buffer.close()

    def contains(self, name: str) -> bool:
        try:
            if self.format == "zip":
                self.file.getinfo(name)
            else:
                self.file.getmember(name)
        except KeyError:
            return False
        return True

    def _add(self, path: str, name: str) -> None:
        if self.format == "zip":
            if not any(fnmatch(path, p) for p in self.exclusion_patterns):
                self.file.write(path, name)
        else:
            def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
                return None if any(fnmatch(info.name, p) for p in self.exclusion_patterns) else info

            self.file.add(path, name, recursive=False, filter=keep)

    def add(self, path: str, name: str) -> None:
        try:
            path.encode("ascii")
            self._add(path, name)
            if self.contains(name):
                self.successes.append(path)
        except Exception as exc:  # noqa: BLE001 - the module collects every error
            self.errors.append(f"{path}: {exc}")

    def _compressed(self, path: str, mode: str) -> IO[bytes]:
        if self.format == "gz":
            return gzip.open(path, mode)  # type: ignore[return-value]
        if self.format == "bz2":
            return bz2.BZ2File(path, mode)
        if self.format == "xz":
            return lzma.LZMAFile(path, mode)
        raise _Fail(msg=f"{self.format} is not a valid format")

    def add_single_target(self, path: str) -> None:
        if self.format in ("zip", "tar"):
            self.open()
            self.add(path, strip_prefix(self.root, path))
            self.close()
            self.destination_state = ARCHIVED
            return
        try:
            with self._compressed(self.dest, "wb") as out, open(path, "rb") as source:
                shutil.copyfileobj(source, out)
            self.successes.append(path)
            self.destination_state = COMPRESSED
        except OSError as exc:
            raise _Fail(path=path, dest=self.destination, msg=f"Unable to write to compressed file: {exc}") from None

    def add_targets(self) -> None:
        self.open()
        try:
            for target in self.targets:
                if os.path.isdir(target):
                    for directory, dirnames, filenames in os.walk(target, topdown=True):
                        for name in [*dirnames, *filenames]:
                            full = os.path.join(directory, name)
                            self.add(full, strip_prefix(self.root, full))
                else:
                    self.add(target, strip_prefix(self.root, target))
        except Exception as exc:  # noqa: BLE001
            kind = self.format if self.format in ("zip", "tar") else f"tar.{self.format}"
            raise _Fail(msg=f"Error when writing {kind} archive at {self.destination}: {exc}") from None
        self.close()
        if self.errors:
            raise _Fail(msg=f"Errors when writing archive at {self.destination}: {'; '.join(self.errors)}")

    # -- what changed -----------------------------------------------------------------------
    def destination_exists(self) -> bool:
        return bool(self.destination) and os.path.exists(self.dest)

    def destination_size(self) -> int:
        return os.path.getsize(self.dest) if self.destination_exists() else 0

    def destination_checksums(self) -> set[tuple[str, int]] | None:
        if self.destination_exists() and os.access(self.dest, os.R_OK):
            return self._checksums(self.dest)
        return None

    def _checksums(self, path: str) -> set[tuple[str, int]]:
        if self.format == "zip":
            try:
                with zipfile.ZipFile(path, "r") as archive:
                    return {(info.filename, info.CRC) for info in archive.infolist()}
            except zipfile.BadZipFile:
                return set()
        try:
            if self.format == "xz":
                with lzma.open(path, "r") as handle, tarfile.open(fileobj=handle) as archive:
                    return {(info.name, info.chksum) for info in archive.getmembers()}
            with tarfile.open(path, "r|" + self.format) as archive:  # type: ignore[call-overload]
                return {(info.name, info.chksum) for info in archive.getmembers()}
        except (lzma.LZMAError, tarfile.ReadError, tarfile.CompressionError):
            try:  # a compressed single file: the checksum of its content
                checksum = 0
                with self._compressed(path, "r") as handle:
                    for chunk in iter(lambda: handle.read(16 * 1024 * 1024), b""):
                        checksum = crc32(chunk, checksum)
                return {("", checksum)}
            except Exception:  # noqa: BLE001
                return set()

    def is_different_from_original(self) -> bool:
        if self.original_checksums is None:
            return self.original_size != self.destination_size()
        return self.original_checksums != self.destination_checksums()

    def remove_targets(self) -> None:
        for path in self.successes:
            if os.path.exists(path):
                try:
                    if os.path.isdir(path):
                        shutil.rmtree(path)
                    else:
                        os.remove(path)
                except OSError:
                    self.errors.append(path)
        for path in self.paths:
            try:
                if os.path.isdir(path):
                    shutil.rmtree(path)
            except OSError:
                self.errors.append(path)
        if self.errors:
            raise _Fail(dest=self.destination, msg="Error deleting some source files: ", files=self.errors)

    @property
    def result(self) -> dict[str, Any]:
        return {"archived": list(self.successes), "dest": self.destination, "dest_state": self.destination_state,
                "changed": self.changed, "arcroot": self.root, "missing": list(self.not_found),
                "expanded_paths": list(self.expanded_paths),
                "expanded_exclude_paths": list(self.expanded_exclude_paths)}


def run(args: dict[str, Any], ctx: ModuleContext) -> dict[str, Any]:
    params = validate("archive", args, SPEC)
    try:
        return path_facts(_archive(params, ctx.check_mode))
    except _Fail as failure:
        return path_facts(failure.result)


def _archive(params: dict[str, Any], check_mode: bool) -> dict[str, Any]:
    archive = Archive(params)
    for path in archive.paths:
        (archive.targets if os.path.lexists(path) else archive.not_found).append(path)
    if not archive.targets:
        if archive.destination_exists():
            archive.destination_state = ARCHIVED if is_archive(archive.dest) else COMPRESSED
    elif archive.must_archive:
        if check_mode:
            archive.changed = True
        else:
            archive.add_targets()
            archive.destination_state = INCOMPLETE if archive.not_found else ARCHIVED
            archive.changed |= archive.is_different_from_original()
            if archive.remove:
                archive.remove_targets()
    elif check_mode:
        if not archive.destination_exists():
            archive.changed = True
    else:
        path = archive.paths[0]
        archive.add_single_target(path)
        archive.changed |= archive.is_different_from_original()
        if archive.remove:
            try:
                os.remove(path)
            except OSError as exc:
                raise _Fail(path=path, msg=f"Unable to remove source file: {exc}") from None
    if archive.destination_exists():
        check_ownership(archive.dest, params["owner"], params["group"])
        archive.changed = set_mode(archive.dest, params["mode"], check_mode, None) or archive.changed
    return archive.result
