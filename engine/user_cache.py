"""Where playbook-ls keeps what it may recompute: the user's cache directory, never a project's."""

from __future__ import annotations

import os
import sys

try:  # hashlib's own blake2b; importing hashlib itself starts OpenSSL, 2 ms of a short run
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the module
    from hashlib import blake2b

__all__ = ["blake2b", "cache_dir", "write_quietly"]


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


def write_quietly(target: str, text: str) -> None:
    """Write a cache file atomically; a cache that cannot be written is only slower."""
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        temporary = f"{target}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, target)
    except OSError:
        pass
