"""Whatever is in playbook-ls's cache directory, a result is the one an empty cache gives.

For each cache (the parse store behind ``list-tasks``, ``vars`` and the editor's index, the
module docs and summaries behind a hover, the routing table, the inventory-plugin answers, the
editor's result documents and rule pages) each hostile variant is planted: an entry another
writer made (unsealed, sealed with another user's secret, copied from another key), a stale or
damaged one, a FIFO, a link to /dev/zero, a huge file, an entry nested 200,000 deep, a database
whose table is an endless recursive view or carries a trigger. Each must leave the result as it
is, answer within a deadline (a hang fails fast) and print no traceback; the bad entry is
dropped and made again.
"""

from __future__ import annotations

import faulthandler
import json
import os
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import user_cache
from engine.parsing.parse_store import DATABASE, FORMAT, NOTES, ParseStore, encode_loaded
from engine.parsing.source import parse_text

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 20  # seconds: a cache read that blocks fails the test instead of hanging the suite
HUGE = 4 << 30  # a sparse file: nothing of it is ever to be read
PLAYBOOK = """\
- hosts: localhost
  gather_facts: false
  vars:
    greeting: hello
  tasks:
    - name: say
      debug:
        msg: "{{ greeting }}"
      tags: [real]
"""
HOSTILE_PLAYBOOK = PLAYBOOK.replace("hello", "planted").replace("[real]", "[planted]")
FILE_VARIANTS = ("unsealed", "another secret", "another key", "fifo", "dev zero", "huge", "directory",
                 "nested", "sealed nested", "sealed garbage", "sealed wrong shape")


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """An in-process test that blocks is interrupted (SIGALRM) rather than hanging; one stuck in
    C code, where no signal handler runs (an endless SQLite query), ends its process instead."""
    def expired(*_args: Any) -> None:
        raise TimeoutError(f"still waiting after {DEADLINE} s: a cache read blocks")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(DEADLINE)
    faulthandler.dump_traceback_later(DEADLINE * 4, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(cache))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PLAYBOOK_LS_CACHE_KEY", raising=False)
    monkeypatch.setattr(user_cache, "_secret", [])
    return cache


def _sealed_by_another(payload: bytes, context: str) -> bytes:
    """What another machine's (or a fork's CI job's) playbook-ls would have written."""
    saved = list(user_cache._secret)
    user_cache._secret[:] = [b"another user's secret".ljust(32, b".")]
    try:
        sealed = user_cache.seal(payload, context)
    finally:
        user_cache._secret[:] = saved
    assert sealed is not None
    return sealed


def plant(path: Path, variant: str, payload: bytes, wrong_shape: bytes = b"[]") -> None:
    """Put ``variant`` at ``path``, an entry whose genuine ``payload`` would change the result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    context = user_cache._context(str(path))
    nested = b"[" * 200_000 + b"]" * 200_000
    if variant == "unsealed":
        path.write_bytes(payload)
    elif variant == "another secret":
        path.write_bytes(_sealed_by_another(payload, context))
    elif variant == "another key":  # a genuine entry, copied to another entry's name
        path.write_bytes(user_cache.seal(payload, context + ".other") or b"")
    elif variant == "fifo":
        os.mkfifo(path)
    elif variant == "dev zero":
        path.symlink_to("/dev/zero")
    elif variant == "huge":
        with open(path, "wb") as handle:
            handle.truncate(HUGE)
    elif variant == "directory":
        path.mkdir()
    elif variant == "nested":
        path.write_bytes(nested)
    else:  # damaged after sealing, or written by a playbook-ls with another format: the shape is checked
        content = {"sealed nested": nested, "sealed garbage": b"\xff\x00 not json", "sealed wrong shape": wrong_shape}
        path.write_bytes(user_cache.seal(content[variant], context) or b"")


# -- the helpers themselves ------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["fifo", "dev zero", "huge", "directory", "missing"])
def test_read_cache_file_refuses_what_is_not_a_small_regular_file(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "entry"
    if variant != "missing":
        plant(path, variant, b"")
    assert user_cache.read_cache_file(str(path), 1 << 20) is None
    (tmp_path / "real").write_bytes(b"12345")
    assert user_cache.read_cache_file(str(tmp_path / "real"), 5) == b"12345"
    assert user_cache.read_cache_file(str(tmp_path / "real"), 4) is None


def test_an_entry_opens_only_under_its_own_key_with_this_users_secret(private_cache: Path) -> None:
    sealed = user_cache.seal(b"payload", "modules/a.json")
    assert sealed is not None and user_cache.unseal(sealed, "modules/a.json") == b"payload"
    assert user_cache.unseal(sealed, "modules/b.json") is None
    assert user_cache.unseal(sealed[:-1] + b"X", "modules/a.json") is None
    assert user_cache.unseal(_sealed_by_another(b"payload", "modules/a.json"), "modules/a.json") is None
    secret = Path(user_cache.secret_file())
    assert not secret.is_relative_to(private_cache)  # a restored or shared cache does not carry it
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_secret_others_can_read_is_replaced(private_cache: Path) -> None:
    first = user_cache.secret()
    secret = Path(user_cache.secret_file())
    secret.chmod(0o644)
    user_cache._secret.clear()
    assert user_cache.secret() not in (None, first)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_given_key_is_used_as_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_KEY", "from the CI's secrets")
    assert user_cache.secret() is not None and not os.path.exists(user_cache.secret_file())


def test_a_cache_directory_others_may_write_is_made_private(private_cache: Path) -> None:
    private_cache.mkdir(mode=0o777)
    private_cache.chmod(0o777)
    assert user_cache.cache_subdir("modules", create=True) == str(private_cache / "modules")
    assert stat.S_IMODE(private_cache.stat().st_mode) & 0o022 == 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a directory away needs root")
def test_a_cache_directory_of_another_user_is_not_used(private_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    private_cache.mkdir()
    os.chown(private_cache, 4242, 4242)
    assert user_cache.cache_subdir("modules", create=True) is None
    assert user_cache.cache_subdir("routing", create=True) is None
    err = capsys.readouterr().err
    assert err.count(f"not using the cache directory {private_cache}: it belongs to another user") == 1


def test_write_quietly_replaces_a_planted_link_instead_of_writing_through_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "entry").symlink_to(victim)
    assert user_cache.write_quietly(str(tmp_path / "entry"), "new")
    assert victim.read_text() == "keep" and (tmp_path / "entry").read_text() == "new"


# -- the parse store: list-tasks, vars and the editor's index ---------------------------------------

def _cli(command: list[str], cwd: Path) -> tuple[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "playbook_ls", *command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=DEADLINE * 3)
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout, done.stderr


DATABASE_VARIANTS = ("unsealed", "another secret", "another key", "older format", "recursive view", "trigger",
                     "another table", "not a database", "fifo", "fifo journal", "fifo notes", "dev zero",
                     "dev zero notes", "huge", "directory")


def _plant_database(store: Path, variant: str, key: str, other_key: str, hostile: str) -> None:
    """Replace the genuine store in ``store`` by ``variant``; ``hostile`` is a parse, as JSON,
    that would change the result if it were read under ``key``."""
    database_path = store / DATABASE
    if variant in ("unsealed", "another secret", "another key"):
        value = {"unsealed": hostile.encode(), "another secret": _sealed_by_another(hostile.encode(), key),
                 "another key": user_cache.seal(hostile.encode(), other_key)}[variant]
        with sqlite3.connect(database_path) as database:
            database.execute("INSERT OR REPLACE INTO parsed (key, value) VALUES (?, ?)", (key, value))
        return
    beside = {"fifo journal": (DATABASE + "-journal", "fifo"), "fifo notes": (NOTES, "fifo"),
              "dev zero notes": (NOTES, "dev zero")}
    if variant in beside:
        name, kind = beside[variant]
        plant(store / name, kind, b"")
        return
    database_path.unlink()
    if variant in ("fifo", "dev zero", "huge", "directory"):
        plant(database_path, variant, b"")
        return
    if variant == "not a database":
        database_path.write_bytes(b"SQLite format 3\0" + os.urandom(8192))
        return
    with sqlite3.connect(database_path) as database:
        if variant == "older format":  # playbook-ls before entries were sealed, as an attacker writes it
            database.execute("CREATE TABLE parsed (key TEXT PRIMARY KEY, value TEXT)")
            database.execute("INSERT INTO parsed VALUES (?, ?)", (key, hostile))
        elif variant == "recursive view":
            database.execute("CREATE VIEW parsed AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                             "SELECT 'k' || i AS key, NULL AS value FROM n")
        else:
            database.execute("CREATE TABLE parsed (key TEXT PRIMARY KEY, value BLOB)")
            if variant == "trigger":
                database.execute("CREATE TRIGGER t AFTER INSERT ON parsed BEGIN "
                                 "INSERT INTO parsed SELECT key || 'x', value FROM parsed; END")
            else:
                database.execute("CREATE TABLE other (x)")
        database.execute(f"PRAGMA user_version = {FORMAT}")


def _cli_with(command: list[str], cwd: Path, cache: Path, state: Path) -> str:
    saved = {name: os.environ[name] for name in ("PLAYBOOK_LS_CACHE_DIR", "XDG_STATE_HOME")}
    os.environ.update(PLAYBOOK_LS_CACHE_DIR=str(cache), XDG_STATE_HOME=str(state))
    try:
        return _cli(command, cwd)[0]
    finally:
        os.environ.update(saved)


LIST_TASKS = ["list-tasks", "site.yml", "-i", "localhost,"]
VARS = ["vars", "site.yml", "-i", "localhost,", "--host", "localhost"]


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, str]:
    """The playbook; a genuine store of its parses (three runs: noted, stored, read back) and the
    secret it is sealed with; what list-tasks and vars print with an empty cache."""
    repo = tmp_path_factory.mktemp("repo")
    (repo / "site.yml").write_text(PLAYBOOK)
    empty, template = tmp_path_factory.mktemp("empty"), tmp_path_factory.mktemp("template")
    listing = _cli_with(LIST_TASKS, repo, empty / "cache", empty / "state")
    variables = _cli_with(VARS, repo, empty / "cache", empty / "state")
    for _run in range(3):
        assert _cli_with(LIST_TASKS, repo, template / "cache", template / "state") == listing
    assert "TAGS: [real]" in listing and "planted" not in listing
    assert "hello" in variables
    return repo, template, listing, variables


@pytest.mark.parametrize("variant", DATABASE_VARIANTS)
def test_the_parse_store_changes_no_listing(genuine: tuple[Path, Path, str, str], tmp_path: Path,
                                            private_cache: Path, variant: str) -> None:
    repo, template, listing, variables = genuine
    shutil.copytree(template / "cache", private_cache)
    shutil.copytree(template / "state", tmp_path / "state")  # this test seals with the store's secret
    store, site = private_cache / "parsed", "site.yml"  # the path as the command names it
    key = ParseStore(str(store))._entry(site, PLAYBOOK)
    with sqlite3.connect(store / DATABASE) as database:  # the genuine entry is there to be replaced
        assert database.execute("SELECT count(*) FROM parsed WHERE key = ?", (key,)).fetchone() == (1,)
    hostile = encode_loaded(parse_text(HOSTILE_PLAYBOOK, site))
    assert hostile is not None
    _plant_database(store, variant, key, ParseStore(str(store))._entry("other.yml", PLAYBOOK), hostile)
    assert _cli(LIST_TASKS, repo)[0] == listing
    if variant in ("unsealed", "another secret", "another key", "older format"):
        assert _cli(VARS, repo)[0] == variables
    assert _cli(LIST_TASKS, repo)[0] == listing  # and once the store is made again


@pytest.mark.parametrize("variant", DATABASE_VARIANTS)
def test_the_editors_stored_parses_ignore_a_hostile_store(tmp_path: Path, variant: str) -> None:
    from playbook_ls.lsp.stored_parses import LaterWrites

    store, path = tmp_path / "parsed", str(tmp_path / "site.yml")
    writes = LaterWrites(ParseStore(str(store), store_first_parse=True))
    writes.put(path, PLAYBOOK, parse_text(PLAYBOOK, path))
    writes.put(str(tmp_path / "other.yml"), PLAYBOOK, parse_text(PLAYBOOK, path))
    writes.write_some()
    hostile = encode_loaded(parse_text(HOSTILE_PLAYBOOK, path)) or ""
    fresh = ParseStore(str(store))
    _plant_database(store, variant, fresh._entry(path, PLAYBOOK), fresh._entry(str(tmp_path / "other.yml"), PLAYBOOK),
                    hostile)
    found = LaterWrites(ParseStore(str(store), store_first_parse=True)).get(path, PLAYBOOK)
    assert found is None or found == parse_text(PLAYBOOK, path)  # the genuine entry, where it is left alone
    command = ParseStore(str(store))  # a command's store notes a new text: never through a FIFO or a link
    command.put(str(tmp_path / "new.yml"), "a: 1\n", parse_text("a: 1\n", "new.yml"))
    command.flush()


# -- the module docs and summaries behind a hover ---------------------------------------------------

@pytest.mark.parametrize("variant", FILE_VARIANTS)
@pytest.mark.parametrize("kind", ["doc", "summary"])
def test_the_module_doc_cache_changes_no_hover(tmp_path: Path, variant: str, kind: str) -> None:
    from engine.plugins.index import ModuleIndex
    from tests.module_tree import make_tree

    index, _marker = make_tree(tmp_path)
    expected = (index.summaries(), index.docs("acme.tools.beacon"))
    entries = list((tmp_path / "cache" / "modules").glob(f"*.{kind}.json"))
    assert entries
    for entry in entries:
        genuine = json.loads(user_cache.read_entry(str(entry), 1 << 20) or b"null")
        text = re.sub(r'"short_description": "[^"]*"', '"short_description": "Planted"', json.dumps(genuine))
        text = text.replace("Overrides", "Planted")
        assert "Planted" in text
        plant(entry, variant, text.encode(), wrong_shape=b'{"doc": 5}' if kind == "doc" else b'{"x": {"path": 1}}')
    again = ModuleIndex(None, index.collections, index.library_dirs)
    assert (again.summaries(), again.docs("acme.tools.beacon")) == expected
    if variant != "directory":  # made again, and read back
        fresh = ModuleIndex(None, index.collections, index.library_dirs)
        assert (fresh.summaries(), fresh.docs("acme.tools.beacon")) == expected


# -- ansible-core's routing table ---------------------------------------------------------------------

@pytest.mark.parametrize("variant", FILE_VARIANTS)
def test_the_routing_cache_changes_no_redirect(tmp_path: Path, variant: str) -> None:
    from engine.plugins import routing as runtime_routing

    runtime = tmp_path / "runtime.yml"
    entries = "".join(f"    mod{index}:\n      redirect: real.coll.mod{index}\n" for index in range(200))
    runtime.write_text(f"plugin_routing:\n  modules:\n{entries}")
    runtime_routing.load_routing.cache_clear()
    expected = runtime_routing.load_routing(str(runtime))
    [entry] = (tmp_path / "cache" / "routing").iterdir()
    plant(entry, variant, json.dumps({"modules": {"mod1": {"redirect": "planted.coll.mod1"}}}).encode())
    runtime_routing.load_routing.cache_clear()
    assert runtime_routing.load_routing(str(runtime)) == expected
    runtime_routing.load_routing.cache_clear()
    assert runtime_routing.load_routing(str(runtime)) == expected


# -- inventory plugins' answers ------------------------------------------------------------------------

def test_no_inventory_plugin_answer_is_read_from_the_cache_directory(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin's answer is never kept on disk (a file key cannot tell a changed fleet), so nothing
    planted where an older playbook-ls kept answers is read."""
    from engine.inventory import external

    document = {"_meta": {"parsed": True, "failures": [], "hosts": ["real"], "groups": ["all"],
                          "hostvars": {"real": {"x": 1}}},
                "all": {"vars": {}, "hosts": ["real"], "children": [], "priority": 1}}
    runs: list[str] = []
    monkeypatch.setattr(external, "_run_child",
                        lambda request, flush=False: runs.append(request.source) or json.dumps(document))
    monkeypatch.setattr(external, "_memory", {})
    (tmp_path / "fleet.yml").write_text("plugin: fleet\n")
    request = external.Request(str(tmp_path / "fleet.yml"), "fleet", str(tmp_path / "fleet.yml"))
    planted = json.loads(json.dumps(document).replace('"real"', '"planted"'))
    directory = tmp_path / "cache" / "inventory-plugins"
    directory.mkdir(parents=True)
    (directory / f"{external.cache_key(request)}.json").write_text(json.dumps({"expires": None, "document": planted}))
    assert external.read_source(request) == document and len(runs) == 1
    assert [entry.name for entry in directory.iterdir()] == [f"{external.cache_key(request)}.json"]


# -- the editor's documents ----------------------------------------------------------------------------

def test_a_result_document_is_not_written_through_a_planted_link(tmp_path: Path, private_cache: Path) -> None:
    from playbook_ls.lsp.presenting import result_file

    victim = tmp_path / "victim"
    victim.write_text("keep")
    (private_cache / "results").mkdir(parents=True)
    (private_cache / "results" / "list-tasks.txt").symlink_to(victim)
    path = result_file("list-tasks", "the listing")
    assert path.read_text() == "the listing" and not path.is_symlink() and victim.read_text() == "keep"


def test_a_planted_rule_page_is_written_again(private_cache: Path) -> None:
    from playbook_ls import __version__
    from playbook_ls.lsp.server import rule_docs_uri
    from playbook_ls.rules.docs import render_page

    rule_docs_uri.cache_clear()
    assert rule_docs_uri() is not None
    page = private_cache / "docs" / __version__ / "PLS101.md"
    genuine = page.read_text()
    page.write_text("planted documentation")
    rule_docs_uri.cache_clear()
    assert rule_docs_uri() is not None and page.read_text() == genuine
    from playbook_ls import rules

    assert genuine == render_page(rules.RULES["PLS101"])
