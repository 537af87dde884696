"""Where playbook-ls keeps what it may recompute: the user's cache directory, never a project's.

Nothing read back from the cache may change a result, block or fill memory, whoever wrote it: the
directory can be shared, restored by a CI job from another branch or fork, or planted. So every
cache goes through these helpers:

- :func:`cache_subdir` gives a cache's directory only when it is private: owned by this user and
  writable by no one else (a directory of ours that others may write is made private; one
  another user owns is refused, as pip and ssh refuse theirs, and the cache is not used).
- :func:`read_cache_file` reads regular files only (never a FIFO, a device or a symbolic link),
  without blocking, up to a size limit; anything else is None.
- :func:`write_quietly` writes through a new private file renamed into place, so a planted
  symbolic link is replaced, never written through.
- :func:`seal` / :func:`unseal` bind an entry to the key it is stored under with a MAC keyed by
  a per-user secret kept outside the cache directory (:func:`secret`): an entry this user's
  playbook-ls did not write for that key (planted, copied from another key, another machine's,
  damaged) is None, and the value is computed again. :func:`read_entry` / :func:`write_entry`
  are the two together for a cache of one file per entry.

Every helper answers None (or does nothing) rather than raise: a cache that cannot be used is
only slower.
"""

from __future__ import annotations

import os
import sys

try:  # hashlib's own blake2b; importing hashlib itself starts OpenSSL, 2 ms of a short run
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the module
    from hashlib import blake2b
try:  # hmac.compare_digest, without importing hmac (and with it hashlib)
    from _operator import _compare_digest as compare_digest
except ImportError:  # pragma: no cover - another Python
    from hmac import compare_digest

__all__ = ["blake2b", "cache_dir", "cache_subdir", "private_dir", "read_cache_file", "read_entry", "seal", "secret",
           "secret_file", "unseal", "write_entry", "write_quietly"]

SECRET_BYTES = 32
MAC_BYTES = 16
_SEAL = b"pls1:"  # what a sealed entry starts with, then the MAC in hex and a newline
_POSIX = os.name == "posix"


def cache_dir() -> str:
    """``PLAYBOOK_LS_CACHE_DIR``, else the platform's cache directory (``$XDG_CACHE_HOME``,
    ``~/.cache``, ``~/Library/Caches``, ``%LOCALAPPDATA%``) with ``playbook-ls`` below it."""
    override = os.environ.get("PLAYBOOK_LS_CACHE_DIR")
    if override:
        return override
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "playbook-ls")


_refused: set[str] = set()  # directories already reported, once per process each


def private_dir(path: str, create: bool = False) -> bool:
    """Whether ``path`` is a directory this user owns that no one else may write (created with
    mode 0700 when ``create``). One of ours that others may write is made private first; one
    another user owns is refused, and said so on standard error once."""
    try:
        if create:
            os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    import stat

    if not stat.S_ISDIR(info.st_mode):
        return False
    if not _POSIX:
        return True  # ownership and modes are ACLs there; the entries' MACs still hold
    if info.st_uid != os.geteuid():
        if path not in _refused:
            _refused.add(path)
            print(f"playbook-ls: not using the cache directory {path}: it belongs to another user (uid "
                  f"{info.st_uid}); set PLAYBOOK_LS_CACHE_DIR to a directory of your own", file=sys.stderr)
        return False
    if info.st_mode & 0o022:
        try:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o022)
        except OSError:
            return False
    return True


def cache_subdir(name: str, create: bool = False) -> str | None:
    """The directory ``name`` below :func:`cache_dir` when both are private (see
    :func:`private_dir`; created when ``create``), else None: the cache is not to be used."""
    top = cache_dir()
    if not private_dir(top, create):
        return None
    path = os.path.join(top, name)
    return path if private_dir(path, create) else None


def read_cache_file(path: str, limit: int) -> bytes | None:
    """The bytes of the regular file ``path`` if it has at most ``limit`` of them; None for a
    missing file, a symbolic link, a FIFO (never waited for), a device, a directory, a larger
    file or a read error."""
    from engine.files import read_bytes

    try:
        return read_bytes(path, limit, follow=False)
    except OSError:  # files.UnreadableFile included
        return None


def write_quietly(target: str, text: str | bytes) -> bool:
    """Write a cache file atomically, through a new file only this user can read (``O_EXCL``:
    a link planted where it is created is never followed) renamed over ``target`` (which
    replaces a planted link instead of writing through it). Whether it was written: a cache
    that cannot be written is only slower."""
    import tempfile

    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    directory = os.path.dirname(target)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    except OSError:
        try:
            os.remove(temporary)
        except OSError:
            pass
        return False
    return True


def secret_file() -> str:
    """Where the per-user secret lives: in the user's state directory (``$XDG_STATE_HOME`` or
    ``~/.local/state``; ``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows),
    ``playbook-ls/cache-key``, outside the cache directory, which a CI job restores and a team
    may share."""
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or os.path.expanduser("~\\AppData\\Roaming")
    elif os.environ.get("XDG_STATE_HOME"):
        base = os.environ["XDG_STATE_HOME"]
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Application Support")
    else:
        base = os.path.expanduser("~/.local/state")
    return os.path.join(base, "playbook-ls", "cache-key")


_secret: list[bytes | None] = []  # read once per process


def secret() -> bytes | None:
    """The key of the entries' MACs: ``PLAYBOOK_LS_CACHE_KEY`` when set (a CI secret, so that a
    restored cache is used again), else :func:`secret_file`'s random bytes, created on first use
    (mode 0600). None when neither can be had, or the file would lie inside the cache directory:
    then no cache is read or written."""
    if not _secret:
        _secret.append(_find_secret())
    return _secret[0]


def _find_secret() -> bytes | None:
    given = os.environ.get("PLAYBOOK_LS_CACHE_KEY")
    if given:
        return blake2b(given.encode("utf-8", "surrogateescape"), digest_size=SECRET_BYTES, person=b"pls-key").digest()
    path = secret_file()
    top = os.path.realpath(cache_dir())
    directory = os.path.dirname(path)
    if os.path.commonpath([top, os.path.realpath(directory)]) == top or not private_dir(directory, create=True):
        return None
    found = _read_secret(path)
    if found is not None:
        return found
    import tempfile

    try:
        descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(os.urandom(SECRET_BYTES))
        try:
            os.link(temporary, path)  # fails if another process made one meanwhile: theirs is used
        except FileExistsError:
            if _read_secret(path) is None:
                os.replace(temporary, path)  # a damaged or readable-by-others file: a new secret
        finally:
            if os.path.exists(temporary):
                os.remove(temporary)
    except OSError:
        return None
    return _read_secret(path)


def _read_secret(path: str) -> bytes | None:
    import stat

    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size != SECRET_BYTES:
            return None
        if _POSIX and (info.st_uid != os.geteuid() or info.st_mode & 0o077):
            return None  # others could read it, and forge entries
        data = os.read(descriptor, SECRET_BYTES)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data if len(data) == SECRET_BYTES else None


_keyed: list[object] = []  # the secret, and blake2b keyed with it: copied for each MAC (keying costs more)


def mac(context: bytes, payload: bytes) -> bytes | None:
    """The MAC of ``payload`` stored under ``context`` (its key), or None without a secret."""
    key = secret()
    if key is None:
        return None
    if not _keyed or _keyed[0] != key:
        _keyed[:] = [key, blake2b(key=key, digest_size=MAC_BYTES)]
    digest = _keyed[1].copy()  # type: ignore[attr-defined]
    digest.update(len(context).to_bytes(8, "little"))
    digest.update(context)
    digest.update(payload)
    return digest.digest()


def seal(payload: bytes, context: str) -> bytes | None:
    """``payload`` with its MAC in front, for :func:`unseal` with the same ``context`` (the
    entry's key); None without a secret (nothing is to be stored)."""
    tag = mac(context.encode("utf-8", "surrogateescape"), payload)
    return None if tag is None else _SEAL + tag.hex().encode() + b"\n" + payload


def unseal(sealed: bytes | None, context: str) -> bytes | None:
    """The payload :func:`seal` sealed under ``context`` with this user's secret, or None for
    anything else."""
    head = len(_SEAL) + 2 * MAC_BYTES + 1
    if sealed is None or len(sealed) < head or not sealed.startswith(_SEAL) or sealed[head - 1:head] != b"\n":
        return None
    payload = sealed[head:]
    tag = mac(context.encode("utf-8", "surrogateescape"), payload)
    if tag is None or not compare_digest(tag.hex().encode(), sealed[len(_SEAL):head - 1]):
        return None
    return payload


def read_entry(path: str, limit: int) -> bytes | None:
    """The payload :func:`write_entry` wrote to ``path`` (bounded and typed as
    :func:`read_cache_file` reads, bound to the file's name), or None."""
    return unseal(read_cache_file(path, limit + 256), _context(path))


def write_entry(path: str, payload: bytes) -> bool:
    """Seal ``payload`` to the file's name and write it (see :func:`write_quietly`)."""
    sealed = seal(payload, _context(path))
    return sealed is not None and write_quietly(path, sealed)


def _context(path: str) -> str:
    """An entry's key: its directory's name and its own (each cache names files by a hash of
    what they were made from), so an entry copied to another name does not verify."""
    return os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
