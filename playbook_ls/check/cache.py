"""The persistent cache of ``playbook-ls check``: results keyed by file content hashes.

One file per checked project in the user cache directory. It maps each YAML file's content
hash to what discovery learnt from it (playbook or not, its syntax error), and each unit
(a playbook, or a role no playbook uses) to its findings, its tags and the hashes of every
file it read. A unit whose files all hash the same is not resolved again, so a second run
on an unchanged repository parses no YAML. Any change to the settings, ansible.cfg, the
environment or the set of files invalidates everything; a damaged cache is ignored.

The cache is plain JSON: loading it can never run code, even if someone plants a cache file
where the cache directory points (it may be set to a path inside a checked repository).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

from engine.user_cache import cache_dir

FORMAT = 3


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class CheckCache:
    """``files``: content hash -> discovery facts; ``units``: unit key -> a unit's result as
    plain JSON data (see ``UnitResult.to_json``)."""

    def __init__(self, path: str | None, fingerprint: str) -> None:
        self.path, self.fingerprint = path, fingerprint
        self.files: dict[str, Any] = {}
        self.units: dict[str, Any] = {}
        self.file_set = ""
        self.dirty = False

    @classmethod
    def open(cls, key: str, fingerprint: str, enabled: bool = True) -> CheckCache:
        if not enabled:
            return cls(None, fingerprint)
        path = os.path.join(cache_dir(), hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest() + ".json")
        cache = cls(path, fingerprint)
        try:
            with open(path, encoding="utf-8") as handle:
                stored = json.load(handle)
            if stored.get("format") == FORMAT and stored.get("fingerprint") == fingerprint:
                files, units, file_set = stored["files"], stored["units"], stored["file_set"]
                if isinstance(files, dict) and isinstance(units, dict) and isinstance(file_set, str):
                    cache.files, cache.units, cache.file_set = files, units, file_set
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            pass  # a missing or damaged cache is simply rebuilt
        return cache

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        data = {"format": FORMAT, "fingerprint": self.fingerprint, "files": self.files, "units": self.units,
                "file_set": self.file_set}
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=os.path.dirname(self.path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, separators=(",", ":"))
            os.replace(temporary, self.path)
        except OSError:
            pass  # a read-only cache directory must not fail the check


_code_identity: str | None = None


def code_identity() -> str:
    """The installed playbook-ls's code, by the size and time of each of its modules: a cached
    finding is only as good as the code that made it, and a checkout can change without a new
    version number."""
    global _code_identity
    if _code_identity is None:
        import engine
        import playbook_ls

        digest = hashlib.blake2b(digest_size=16)
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
