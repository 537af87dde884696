"""The persistent cache of ``playbook-ls check``: results keyed by file content hashes.

One file per checked project in the user cache directory. It maps each YAML file's content
hash to what discovery learnt from it (playbook or not, its syntax error), and each unit
(a playbook, or a role no playbook uses) to its findings, its tags, the hashes of every file it
read and the identities of what it depends on outside them (:mod:`playbook_ls.check.inputs`).
A unit whose files all hash the same and whose inputs are unchanged is not resolved again, so a
second run on an unchanged repository parses no YAML. Any change to the settings, ansible.cfg,
the environment or the set of files invalidates everything.

What is read back never decides a finding unless this user's playbook-ls wrote it: the file
goes through :func:`engine.user_cache.read_entry` / :func:`~engine.user_cache.write_entry`, as
every cache does (a regular file within :data:`MAX_CACHE_BYTES`, never a link, FIFO or device,
sealed with a MAC keyed by this user's secret, kept outside the cache directory), and what
verifies is still checked against the schema this version writes and bound to the checked paths
and the fingerprint it was written for.

Anything else (damaged, planted, too large, unreadable, another version's) is ignored and the
results are recomputed: a cache can make a check slower, never wrong or fatal. The content is
plain JSON, so loading it can never run code.
"""

from __future__ import annotations

import json
import os
from typing import Any

from engine import user_cache
from engine.user_cache import blake2b
from playbook_ls.rules.base import Severity

FORMAT = 4
# Far beyond what a large repository's cache takes (2,500 YAML files: under 1 MB); a larger
# file is not written, and one found is not read
MAX_CACHE_BYTES = 64 * 1024 * 1024


def content_hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


class CheckCache:
    """``files``: content hash -> discovery facts; ``units``: unit key -> a unit's result as
    plain JSON data (see ``UnitResult.to_json``)."""

    def __init__(self, path: str | None, fingerprint: str, key: str = "") -> None:
        self.path, self.fingerprint, self.key = path, fingerprint, key
        self.files: dict[str, Any] = {}
        self.units: dict[str, Any] = {}
        self.file_set = ""
        self.dirty = False

    @classmethod
    def open(cls, key: str, fingerprint: str, enabled: bool = True) -> CheckCache:
        directory = user_cache.cache_subdir("check", create=True) if enabled else None
        if directory is None or user_cache.secret() is None:  # no cache rather than one that cannot be trusted
            return cls(None, fingerprint)
        cache = cls(os.path.join(directory, entry_name(key)), fingerprint, key)
        stored = _load(cache.path)  # type: ignore[arg-type]
        if stored is not None and stored["key"] == key and stored["fingerprint"] == fingerprint:
            cache.files, cache.units, cache.file_set = stored["files"], stored["units"], stored["file_set"]
        return cache

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        data = {"format": FORMAT, "key": self.key, "fingerprint": self.fingerprint, "files": self.files,
                "units": self.units, "file_set": self.file_set}
        payload = json.dumps(data, separators=(",", ":")).encode("utf-8", "surrogateescape")
        if len(payload) <= MAX_CACHE_BYTES:  # a larger one would not be read back
            user_cache.write_entry(self.path, payload)  # a read-only cache directory must not fail the check


def entry_name(key: str) -> str:
    """The cache file of the checked paths ``key``, in the cache directory."""
    return f"check-{blake2b(key.encode('utf-8', 'surrogateescape'), digest_size=20).hexdigest()}.json"


def _load(path: str) -> dict[str, Any] | None:
    """The verified, well-formed content of a cache file, or None."""
    payload = user_cache.read_entry(path, MAX_CACHE_BYTES)
    if payload is None:
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
