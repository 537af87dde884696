"""The persistent cache of ``playbook-ls check``: results keyed by file content hashes.

One file per checked project in the user cache directory. It maps each YAML file's content
hash to what discovery learnt from it (playbook or not, its syntax error), and each unit
(a playbook, or a role no playbook uses) to its findings, its tags, the hashes of every file it
read and the identities of what it depends on outside them (:mod:`playbook_ls.check.inputs`).
A unit whose files all hash the same and whose inputs are unchanged is not resolved again, so a
second run on an unchanged repository parses no YAML. Any change to the settings, ansible.cfg,
the environment or the set of files invalidates everything.

What is read back never decides a finding unless this user's playbook-ls wrote it:

- every cache file carries a keyed BLAKE2b MAC of its content; the key is a random secret of
  this user's, kept outside the cache directory (:func:`key_path`, mode 0600), so an entry
  planted where the cache directory points (a CI cache restored from another job, a directory
  inside a checked repository) does not verify, however right its key and fingerprint;
- the file is read only if it is a regular file (not a link, FIFO or device) under
  :data:`MAX_CACHE_BYTES`, through :func:`engine.files.read_bytes`, which never blocks;
- what verifies is still checked against the schema this version writes, and bound to the
  checked paths and the fingerprint it was written for.

Anything else (damaged, planted, too large, unreadable, another version's) is ignored and the
results are recomputed: a cache can make a check slower, never wrong or fatal. The content is
plain JSON, so loading it can never run code.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from typing import Any

from engine import files
from engine.user_cache import blake2b, cache_dir
from playbook_ls.rules.base import Severity

FORMAT = 4
# Far beyond what a large repository's cache takes (2,500 YAML files: under 1 MB); a larger
# file is not written, and one found is not read
MAX_CACHE_BYTES = 64 * 1024 * 1024
KEY_BYTES = 32
MAC_HEX = 2 * KEY_BYTES


def content_hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


class CheckCache:
    """``files``: content hash -> discovery facts; ``units``: unit key -> a unit's result as
    plain JSON data (see ``UnitResult.to_json``)."""

    def __init__(self, path: str | None, fingerprint: str, key: str = "", secret: bytes = b"") -> None:
        self.path, self.fingerprint, self.key, self.secret = path, fingerprint, key, secret
        self.files: dict[str, Any] = {}
        self.units: dict[str, Any] = {}
        self.file_set = ""
        self.dirty = False

    @classmethod
    def open(cls, key: str, fingerprint: str, enabled: bool = True) -> CheckCache:
        secret = cache_secret() if enabled else None
        if secret is None:  # no cache rather than one whose entries cannot be told from planted ones
            return cls(None, fingerprint)
        cache = cls(os.path.join(cache_dir(), entry_name(key)), fingerprint, key, secret)
        stored = _load(cache.path, secret)  # type: ignore[arg-type]
        if stored is not None and stored["key"] == key and stored["fingerprint"] == fingerprint:
            cache.files, cache.units, cache.file_set = stored["files"], stored["units"], stored["file_set"]
        return cache

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        data = {"format": FORMAT, "key": self.key, "fingerprint": self.fingerprint, "files": self.files,
                "units": self.units, "file_set": self.file_set}
        payload = json.dumps(data, separators=(",", ":")).encode("utf-8", "surrogateescape")
        if len(payload) + MAC_HEX + 1 > MAX_CACHE_BYTES:
            return  # it would not be read back
        directory = os.path.dirname(self.path)
        try:
            os.makedirs(directory, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")  # mode 0600
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(_mac(self.secret, payload).encode() + b"\n" + payload)
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass  # a read-only cache directory must not fail the check


def entry_name(key: str) -> str:
    """The cache file of the checked paths ``key``, in the cache directory."""
    return f"check-{blake2b(key.encode('utf-8', 'surrogateescape'), digest_size=20).hexdigest()}.json"


def _mac(secret: bytes, payload: bytes) -> str:
    return blake2b(payload, key=secret, digest_size=KEY_BYTES).hexdigest()


def _load(path: str, secret: bytes) -> dict[str, Any] | None:
    """The verified, well-formed content of a cache file, or None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None  # a link may point anywhere; what it names is not this cache's own file
        data = files.read_bytes(path, MAX_CACHE_BYTES)  # a FIFO or device swapped in meanwhile is refused
    except OSError:
        return None
    import hmac  # as hashlib, it starts OpenSSL: only for a run that has a cache to read

    mac, newline, payload = data[:MAC_HEX], data[MAC_HEX:MAC_HEX + 1], data[MAC_HEX + 1:]
    if newline != b"\n" or not hmac.compare_digest(mac, _mac(secret, payload).encode()):
        return None
    try:
        stored = json.loads(payload.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return None
    return stored if _valid(stored) else None


# -- the schema -----------------------------------------------------------------------------------
def _valid(stored: Any) -> bool:
    """What :meth:`CheckCache.save` writes, with each value of the type its readers take."""
    return isinstance(stored, dict) and stored.get("format") == FORMAT and _str(stored.get("key")) and \
        _str(stored.get("fingerprint")) and _str(stored.get("file_set")) and \
        _dict_of(stored.get("files"), _facts) and _dict_of(stored.get("units"), _unit)


def _str(value: Any) -> bool:
    return type(value) is str


def _int(value: Any) -> bool:
    return type(value) is int


def _list_of(value: Any, check: Any) -> bool:
    return type(value) is list and all(map(check, value))


def _dict_of(value: Any, check: Any) -> bool:
    return type(value) is dict and all(map(check, value.values()))


def _types(values: Any, *allowed: type) -> bool:
    """Every item of ``values`` (a list, or a dict's values) of one of ``allowed`` types: the
    thousands of hashes and names a cache holds, checked without a call per item."""
    return set(map(type, values)) <= set(allowed)


def _facts(facts: Any) -> bool:
    """``Checker._file_facts``: error is None or [message, [line, col, end_line, end_col]]."""
    if not isinstance(facts, dict) or set(facts) != {"playbook", "plain_imports", "error", "ansible_text"}:
        return False
    error = facts["error"]
    imports = facts["plain_imports"]
    return type(facts["playbook"]) is bool and type(facts["ansible_text"]) is bool and \
        type(imports) is list and _types(imports, str) and (error is None or (
            isinstance(error, list) and len(error) == 2 and _str(error[0]) and
            isinstance(error[1], list) and len(error[1]) == 4 and all(map(_int, error[1]))))


def _unit(unit: Any) -> bool:
    """``UnitResult.to_json``."""
    return isinstance(unit, dict) and set(unit) == {"findings", "tags", "roles", "deps", "probes"} and \
        _list_of(unit["findings"], _finding) and type(unit["tags"]) is list and _types(unit["tags"], str) and \
        type(unit["roles"]) is list and _types(unit["roles"], str) and \
        type(unit["deps"]) is dict and _types(unit["deps"].values(), str, type(None)) and \
        type(unit["probes"]) is dict and _types(unit["probes"].values(), str)


def _span(span: Any) -> bool:
    return isinstance(span, list) and len(span) == 5 and _str(span[0]) and all(map(_int, span[1:]))


def _finding(finding: Any) -> bool:
    """``Finding.to_dict``."""
    if not isinstance(finding, dict) or set(finding) != {"code", "name", "severity", "message", "span", "related"}:
        return False
    return _str(finding["code"]) and _str(finding["name"]) and finding["severity"] in Severity.ALL and \
        _str(finding["message"]) and (finding["span"] is None or _span(finding["span"])) and \
        _list_of(finding["related"], lambda r: isinstance(r, list) and len(r) == 6 and _span(r[:5]) and _str(r[5]))


# -- the key --------------------------------------------------------------------------------------
def key_path() -> str:
    """Where this user's cache key lives: the platform's state directory, never the cache
    directory (which CI systems save and restore, and ``PLAYBOOK_LS_CACHE_DIR`` may put anywhere)."""
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or os.path.expanduser("~\\AppData\\Roaming")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Application Support")
    else:
        base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "playbook-ls", "check-cache.key")


_secrets: dict[str, bytes | None] = {}


def cache_secret() -> bytes | None:
    """This user's cache key, created on first use; None when it cannot be had safely (then
    nothing is cached)."""
    path = key_path()
    if path not in _secrets:
        _secrets[path] = _read_key(path) or _new_key(path)
    return _secrets[path]


def _read_key(path: str) -> bytes | None:
    """The key, if it is a regular file of ours that no one else can read or write."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != KEY_BYTES:
            return None
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            return None
        key = files.read_bytes(path, KEY_BYTES)
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None


def _new_key(path: str) -> bytes | None:
    """A new key at ``path``: the one another process made meanwhile wins; a key found unsafe
    (another's, readable by others) is replaced, which only makes the caches it signed unused."""
    directory = os.path.dirname(path)
    key = os.urandom(KEY_BYTES)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(key)
            try:
                os.link(temporary, path)  # fails if a key exists: the first one made is kept
            except FileExistsError:
                found = _read_key(path)
                if found is not None:
                    return found
                os.replace(temporary, path)
            except OSError:  # a file system without hard links
                os.replace(temporary, path)
        finally:
            if os.path.lexists(temporary):
                os.unlink(temporary)
    except OSError:
        return None
    return _read_key(path)


_code_identity: str | None = None


def code_identity() -> str:
    """The installed playbook-ls's code, by the size and time of each of its modules: a cached
    finding is only as good as the code that made it, and a checkout can change without a new
    version number."""
    global _code_identity
    if _code_identity is None:
        import engine
        import playbook_ls

        digest = blake2b(digest_size=16)
        for package in (engine, playbook_ls):
            root = os.path.dirname(os.path.abspath(package.__file__ or ""))
            for directory, subdirs, names in sorted(os.walk(root)):
                subdirs.sort()
                for name in sorted(names):
                    if name.endswith(".py"):
                        info = os.stat(os.path.join(directory, name))
                        digest.update(f"{directory}/{name}:{info.st_size}:{info.st_mtime_ns}\n".encode())
        _code_identity = digest.hexdigest()
    return _code_identity
