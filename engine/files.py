"""Reading a repository's files: regular files only, and not past a size limit.

A FIFO would block the reader forever, a device (``/dev/zero`` linked as a role file) would be
read until memory runs out, and a 200 MB "playbook" takes gigabytes once parsed. Every file
playbook-ls reads from a repository goes through :func:`read_bytes` (or :func:`read_head`, for its
first bytes).
"""

from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 16 * 1024 * 1024  # far beyond any playbook, task file or inventory people write


class UnreadableFile(OSError):
    """A path that is not a regular file, or a file over the size limit; ``str()`` says which."""


def max_file_bytes() -> int:
    """The limit, which ``PLAYBOOK_LS_MAX_FILE_SIZE`` (bytes) may change."""
    try:
        return max(1, int(os.environ.get("PLAYBOOK_LS_MAX_FILE_SIZE", MAX_FILE_BYTES)))
    except ValueError:
        return MAX_FILE_BYTES


def read_bytes(path: str, limit: int | None = None, follow: bool = True) -> bytes:
    """The file's bytes. Raises :class:`UnreadableFile` for a FIFO, a device, a socket or a
    directory, or for a file over ``limit`` bytes, and ``OSError`` as ``open`` does (``ELOOP``
    for a symbolic link when not ``follow``)."""
    limit = max_file_bytes() if limit is None else limit
    descriptor, info = _open_regular(path, follow)
    try:
        if info.st_size > limit:
            raise UnreadableFile(f"{path} is {info.st_size:,} bytes, over playbook-ls's limit of {limit:,}; "
                                 "set PLAYBOOK_LS_MAX_FILE_SIZE to read it anyway")
        # os.read, not a file object: a run reads hundreds of files, and the buffered reader
        # made for each cost more than the read itself
        data = os.read(descriptor, info.st_size + 1)
        while len(data) <= limit:  # to the end: a read may stop short, a file may grow meanwhile
            more = os.read(descriptor, limit + 1 - len(data))
            if not more:
                break
            data += more
    finally:
        os.close(descriptor)
    if len(data) > limit:
        raise UnreadableFile(f"{path} grew over playbook-ls's limit of {limit:,} bytes while being read")
    return data


def read_head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (all of a shorter one): enough to tell what it
    is without reading it whole. Raises as :func:`read_bytes` does for what is not a regular file."""
    descriptor, _ = _open_regular(path, True)
    try:
        return os.read(descriptor, size)
    finally:
        os.close(descriptor)


def _open_regular(path: str, follow: bool) -> tuple[int, os.stat_result]:
    """A descriptor open for reading on ``path`` and its status; :class:`UnreadableFile` when it
    is not a regular file."""
    # O_NONBLOCK: opening a FIFO for reading must not wait for a writer
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags if follow else flags | getattr(os, "O_NOFOLLOW", 0))
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise UnreadableFile(f"{path} is not a regular file ({_kind(info.st_mode)}); playbook-ls reads only "
                             "regular files")
    return descriptor, info


def read_text(path: str, errors: str = "strict") -> str:
    """:func:`read_bytes` decoded as UTF-8."""
    return read_bytes(path).decode("utf-8", errors)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a file"


def is_file(entry: os.DirEntry[str]) -> bool:
    """A directory entry that is a regular file, through symlinks; a symlink loop or a dangling
    link is none."""
    try:
        return entry.is_file()
    except OSError:  # ELOOP: a -> b -> a
        return False
