"""Whatever is found where the check cache's file should be, the check reports what it reports
with an empty cache: a file that is garbage, of another shape, huge, deeply nested, a FIFO, a
link to a device, or a well-formed entry planted to hide findings. Each run is its own process,
bounded in time and memory (see ``cache_runs``): a read that blocks or fills memory fails."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import user_cache
from tests.check.cache_runs import findings

SITE = """\
- hosts: all
  tasks:
    - name: Everywhere
      ansible.builtin.debug:
        msg: x
      tags: all
    - nosuch_module_here: {}
"""
EXPECTED = [("site.yml", 6, "PLS114"), ("site.yml", 7, "PLS113")]


def split(data: bytes) -> tuple[bytes, dict[str, object]]:
    """A cache file's JSON content, and what comes before it (a line that signs it)."""
    start = data.index(b"{")
    return data[:start], json.loads(data[start:])


@pytest.fixture
def entry(repo: Path, cache_dir: Path) -> Path:
    """The cache file a check of ``repo`` wrote, after a first check found ``EXPECTED``."""
    (repo / "site.yml").write_text(SITE)
    assert findings(repo) == EXPECTED
    (path,) = cache_dir.glob("check/*.json")
    return path


def replace(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink()
    make(path)


def sparse(path: Path) -> None:
    """A file of 64 GB that takes no room on disk."""
    with path.open("wb") as handle:
        handle.truncate(64 << 30)


def planted_clean(path: Path) -> None:
    """The real entry, every finding taken out, its signature (if any) kept as it was."""
    prefix, data = split(path.read_bytes())
    for unit in data["units"].values():  # type: ignore[attr-defined]
        unit["findings"] = []
    path.write_bytes(prefix + json.dumps(data).encode())


def wrong_shape(path: Path) -> None:
    """The real entry with a finding of another shape: a span that is not a list."""
    prefix, data = split(path.read_bytes())
    for unit in data["units"].values():  # type: ignore[attr-defined]
        unit["findings"] = [{"code": "PLS113", "span": "here"}]
    path.write_bytes(prefix + json.dumps(data).encode())


HOSTILE: dict[str, Callable[[Path], None]] = {
    "garbage": lambda path: path.write_bytes(os.urandom(4096)),
    "wrong shape": wrong_shape,
    "planted clean": planted_clean,
    "deeply nested": lambda path: path.write_bytes(b"[" * 1_000_000 + b"]" * 1_000_000),
    "huge": sparse,
    "fifo": lambda path: replace(path, lambda p: os.mkfifo(p)),
    "link to /dev/zero": lambda path: replace(path, lambda p: p.symlink_to("/dev/zero")),
}


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, devices and address-space limits are POSIX's")
@pytest.mark.parametrize("damage", HOSTILE, ids=list(HOSTILE))
def test_a_hostile_cache_file_changes_nothing(repo: Path, entry: Path, damage: str) -> None:
    HOSTILE[damage](entry)
    assert findings(repo) == EXPECTED
    assert findings(repo) == EXPECTED, "the run after reads what the run before wrote"


def test_a_planted_entry_signed_with_another_key_changes_nothing(repo: Path, entry: Path, tmp_path: Path) -> None:
    """A planted file can be signed, with a key that is not this user's: it does not verify."""
    prefix, data = split(entry.read_bytes())
    for unit in data["units"].values():  # type: ignore[attr-defined]
        unit["findings"] = []
    payload = json.dumps(data, separators=(",", ":")).encode()
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(user_cache, "_secret", [b"k" * user_cache.SECRET_BYTES])
        entry.write_bytes(user_cache.seal(payload, f"check/{entry.name}"))  # type: ignore[arg-type]
    assert findings(repo) == EXPECTED


def test_the_key_is_the_users_alone(repo: Path, entry: Path) -> None:
    key = Path(user_cache.secret_file())
    assert key.is_file() and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not key.is_relative_to(Path(os.environ["PLAYBOOK_LS_CACHE_DIR"]))
    first = key.read_bytes()
    key.chmod(0o644)  # others could read it, and so sign entries: it is made anew
    assert findings(repo) == EXPECTED
    assert key.read_bytes() != first and stat.S_IMODE(key.stat().st_mode) == 0o600


def test_without_a_place_for_the_key_nothing_is_cached(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    (repo / "site.yml").write_text(SITE)
    env = {"XDG_STATE_HOME": str(blocker)}
    assert findings(repo, env=env) == EXPECTED
    assert findings(repo, env=env) == EXPECTED
    assert not list(cache_dir.glob("check/*.json"))

