"""The on-disk parse store: what comes back is what parsing gives, or nothing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from engine import code_files
from engine.parsing import parse_store
from engine.parsing.parse_store import DATABASE, NOTES, ParseStore, decode_loaded, encode_loaded
from engine.parsing.source import SourceCache, parse_text
from engine.values import UnsafeText, VaultText

TEXTS = {
    "tasks.yml": """\
- name: web  # a comment
  ansible.builtin.copy:
    content: "{{ body }}"
    dest: /tmp/x
  tags: [a, 'b', 3, 1.5, yes, ~]
  when:
    - x is defined
- debug: msg=hi
  vars:
    secret: !vault |
      $ANSIBLE_VAULT;1.1;AES256
      6162
    raw: !unsafe "{{ not templated }}"
    "quoted key": {1: one, false: t, null: n, 2.5: f}
""",
    "empty.yml": "",
    "scalar.yml": "just text\n",
    "broken.yml": "- a: [1, 2\n- b\n",
    "merge.yml": "base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n",
    "duplicates.yml": "- deep:\n    inner: {k: 1, k: 2}\n  when: a\n  when: b\n"
                      "- base: &b {x: 1}\n  use: {<<: *b, x: 2}\n",
}


def _spans(value: object) -> object:
    """Every span of a parsed value, in walking order, beside the value itself."""
    if isinstance(value, dict):
        return (value.span, [(k, value.key_spans.get(k), value.value_spans.get(k), _spans(v))  # type: ignore[attr-defined]
                             for k, v in value.items()])
    if isinstance(value, list):
        return (value.span, list(zip(value.item_spans, [_spans(v) for v in value], strict=True)))  # type: ignore[attr-defined]
    return (type(value), value)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_stored_parse_comes_back_equal_with_every_span_and_type(name: str) -> None:
    loaded = parse_text(TEXTS[name], name)
    encoded = encode_loaded(loaded)
    assert encoded is not None
    back = decode_loaded(name, encoded)
    assert back.path == loaded.path and back.error == loaded.error and back.data == loaded.data
    assert _spans(back.data) == _spans(loaded.data)
    assert back.duplicates == loaded.duplicates


def test_duplicate_keys_are_found_as_ansibles_constructor_warns_of_them() -> None:
    """Each mapping's keys after its merge keys are flattened (a merged key given again counts),
    mappings level by level, as PyYAML's deferred construction finishes them."""
    loaded = parse_text(TEXTS["duplicates.yml"], "d.yml")
    assert [(problem.message, problem.span.line, problem.span.col) for problem in loaded.duplicates] == [
        ("Found duplicate mapping key 'when'.", 3, 2),
        ("Found duplicate mapping key 'x'.", 5, 16),
        ("Found duplicate mapping key 'k'.", 1, 18),
    ]
    assert loaded.data[0]["when"] == "b" and loaded.data[1]["use"] == {"x": 2}
    assert parse_text(TEXTS["merge.yml"], "m.yml").duplicates == ()


def test_tagged_strings_keep_their_type() -> None:
    back = decode_loaded("tasks.yml", encode_loaded(parse_text(TEXTS["tasks.yml"], "tasks.yml")) or "")
    task_vars = back.data[1]["vars"]
    assert type(task_vars["secret"]) is VaultText and type(task_vars["raw"]) is UnsafeText
    assert list(task_vars["quoted key"]) == [1, False, None, 2.5]


def test_shared_values_from_aliases_are_not_stored() -> None:
    loaded = parse_text("a: &x [1, 2]\nb: *x\n", "alias.yml")
    assert loaded.data["a"] is loaded.data["b"]
    assert encode_loaded(loaded) is None


def _parse_in_two_runs(directory: Path, path: str, text: str) -> ParseStore:
    """What two runs that parse ``text`` leave: the first notes it, the second stores it."""
    for _run in range(2):
        store = ParseStore(str(directory))
        assert store.get(path, text) is None
        store.put(path, text, parse_text(text, path))
        store.flush()
    return ParseStore(str(directory))


def test_the_store_answers_the_same_path_and_text_only(tmp_path: Path) -> None:
    text = TEXTS["tasks.yml"]
    store = _parse_in_two_runs(tmp_path / "store", "tasks.yml", text)
    assert store.get("tasks.yml", text) == parse_text(text, "tasks.yml")
    assert store.get("other.yml", text) is None
    assert store.get("tasks.yml", text + "\n# changed\n") is None
    assert ParseStore(str(tmp_path / "store")).get("tasks.yml", text) is not None  # another run


def test_a_damaged_or_planted_entry_is_parsed_again(tmp_path: Path) -> None:
    text = "- debug: msg=real\n"
    store = _parse_in_two_runs(tmp_path / "store", "t.yml", text)
    database = sqlite3.connect(tmp_path / "store" / DATABASE)
    for planted in ("not json", '{"data": ["x", null, []], "error": null}', '{"data": ["m", [0], [[1]]]}',
                    "[" * 100_000):
        with database:
            database.execute("UPDATE parsed SET value = ?", (planted,))
        assert ParseStore(str(tmp_path / "store")).get("t.yml", text) is None
    cache = SourceCache(store)
    (tmp_path / "t.yml").write_text(text)
    assert cache.load(str(tmp_path / "t.yml")).data == [{"debug": "msg=real"}]


def test_a_file_that_is_not_a_database_is_started_again(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / DATABASE).write_text("planted, not a database\n" * 100)
    store = ParseStore(str(tmp_path / "store"))
    assert store.get("t.yml", "a: 1\n") is None
    for _run in range(2):  # noted, then stored, in a store made afresh
        store.put("t.yml", "a: 1\n", parse_text("a: 1\n", "t.yml"))
        store.flush()
        store = ParseStore(str(tmp_path / "store"))
    assert store.get("t.yml", "a: 1\n").data == {"a": 1}


def test_a_parse_is_stored_when_a_second_run_parses_the_same_text(tmp_path: Path) -> None:
    texts = {f"t{index}.yml": f"a: {index}\n" for index in range(3)}
    for run in ("first", "second"):
        store = ParseStore(str(tmp_path / "store"))
        for path, text in texts.items():
            assert store.get(path, text) is None
            store.put(path, text, parse_text(text, path))
        if run == "first":
            assert not (tmp_path / "store").exists()  # nothing written before the run ends
        store.flush()
        if run == "first":  # the texts are only noted, in a plain file: no database, no SQLite
            assert os.listdir(tmp_path / "store") == [NOTES]
            assert store._database is None
            continue
        assert os.listdir(tmp_path / "store") == [DATABASE]  # the notes moved into it
        database = sqlite3.connect(tmp_path / "store" / DATABASE)
        assert database.execute("SELECT count(value) FROM parsed").fetchone()[0] == 3
    third = ParseStore(str(tmp_path / "store"))
    assert [third.get(path, text).data for path, text in texts.items()] == [{"a": 0}, {"a": 1}, {"a": 2}]
    assert third.hits == 3


def test_a_changed_parser_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _parse_in_two_runs(tmp_path / "store", "t.yml", "a: 1\n")
    monkeypatch.setattr("engine.parsing.parse_store._parser_fingerprint", lambda: "another parser")
    assert ParseStore(str(tmp_path / "store")).get("t.yml", "a: 1\n") is None


def test_a_command_stops_parsing_a_file_from_its_third_run(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYBOOK_LS_CACHE_DIR", str(tmp_path / "cache"))
    playbook = tmp_path / "site.yml"
    playbook.write_text("- hosts: all\n  tasks:\n    - debug: msg=one\n")
    runs = []
    for _run in range(3):
        cache = SourceCache.for_command()
        assert cache.load(str(playbook)).data[0]["hosts"] == "all"
        assert cache.store is not None
        cache.store.flush()  # as when the command ends
        runs.append((cache.parsed, cache.store.hits))
    assert runs == [(1, 0), (1, 0), (0, 1)]
    playbook.write_text("- hosts: web\n  tasks: []\n")
    changed = SourceCache.for_command()
    assert changed.load(str(playbook)).data[0]["hosts"] == "web" and changed.parsed == 1


def test_unsaved_buffers_are_never_stored(tmp_path: Path) -> None:
    store = ParseStore(str(tmp_path / "store"))
    cache = SourceCache(store)
    cache.overlay[str(tmp_path / "t.yml")] = "- debug: msg=unsaved\n"
    assert cache.load(str(tmp_path / "t.yml")).data == [{"debug": "msg=unsaved"}]
    assert not (tmp_path / "store").exists() or not os.listdir(tmp_path / "store")


def test_an_unwritable_store_only_means_parsing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = ParseStore(str(blocker / "store"))  # a directory below a file cannot exist
    store.put("t.yml", "a: 1\n", parse_text("a: 1\n", "t.yml"))
    store.flush()
    assert store.get("t.yml", "a: 1\n") is None


def test_a_long_running_process_stores_a_first_parse(tmp_path: Path) -> None:
    store = ParseStore(str(tmp_path / "store"), store_first_parse=True)
    store.put("t.yml", "a: 1\n", parse_text("a: 1\n", "t.yml"))
    store.flush()
    assert ParseStore(str(tmp_path / "store")).get("t.yml", "a: 1\n").data == {"a": 1}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_neither_reuses_the_connection_nor_writes_its_parents_parses(tmp_path: Path) -> None:
    text = "a: 1\n"
    store = _parse_in_two_runs(tmp_path / "store", "t.yml", text)
    assert store.get("t.yml", text) is not None  # the connection is open
    store.put("other.yml", "b: 2\n", parse_text("b: 2\n", "other.yml"))
    pid = os.fork()
    if pid == 0:  # the child: reads through a connection of its own, writes nothing
        ok = store.get("t.yml", text) is not None and store._database is not None
        store.flush()
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    database = sqlite3.connect(tmp_path / "store" / DATABASE)
    keys = database.execute("SELECT count(*) FROM parsed").fetchone()[0]
    assert keys == 1  # the child did not note other.yml; the parent has not flushed yet
    store.flush()
    assert database.execute("SELECT count(*) FROM parsed").fetchone()[0] == 2


def test_notes_of_texts_not_parsed_again_move_into_the_database(tmp_path: Path) -> None:
    first = ParseStore(str(tmp_path / "store"))
    for name in ("a.yml", "b.yml"):
        first.put(name, f"{name}: 1\n", parse_text(f"{name}: 1\n", name))
    first.flush()
    second = ParseStore(str(tmp_path / "store"))  # parses a.yml again, b.yml not
    second.put("a.yml", "a.yml: 1\n", parse_text("a.yml: 1\n", "a.yml"))
    second.flush()
    assert os.listdir(tmp_path / "store") == [DATABASE]
    third = ParseStore(str(tmp_path / "store"))  # b.yml's second parse is stored: its note was kept
    assert third.get("b.yml", "b.yml: 1\n") is None
    third.put("b.yml", "b.yml: 1\n", parse_text("b.yml: 1\n", "b.yml"))
    third.flush()
    fourth = ParseStore(str(tmp_path / "store"))
    assert fourth.get("a.yml", "a.yml: 1\n").data == {"a.yml": 1}
    assert fourth.get("b.yml", "b.yml: 1\n").data == {"b.yml": 1}


def test_a_notes_file_over_its_bound_notes_nothing_and_is_started_again(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.parsing.parse_store._NOTES_READ", 41 * 3)
    store = ParseStore(str(tmp_path / "store"))
    keys = [store._entry(f"t{index}.yml", "a: 1\n") for index in range(5)]
    (tmp_path / "store").mkdir(mode=0o700)
    (tmp_path / "store" / NOTES).write_text("".join(f"{key}\n" for key in keys[:3]))
    assert store._noted_in_file() == set(keys[:3])
    (tmp_path / "store" / NOTES).write_text("".join(f"{key}\n" for key in keys))
    store = ParseStore(str(tmp_path / "store"))
    assert store._noted_in_file() == set()  # a planted or damaged file cannot fill memory
    store.put("t9.yml", "a: 1\n", parse_text("a: 1\n", "t9.yml"))
    store.flush()
    assert ParseStore(str(tmp_path / "store"))._noted_in_file() == {store._entry("t9.yml", "a: 1\n")}



def test_an_upgraded_yaml_library_changes_the_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = tmp_path / "some_yaml_library.py"
    library.write_text("VERSION = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(code_files, "PARSER_LIBRARIES", ("some_yaml_library",))
    monkeypatch.setattr(code_files, "_identities", {})
    before = parse_store._parser_fingerprint()
    library.write_text("VERSION = 2.0\n")
    monkeypatch.setattr(code_files, "_identities", {})
    assert parse_store._parser_fingerprint() != before


def test_a_store_no_longer_used_closes_its_database(tmp_path: Path) -> None:
    """Every command and every run in a long-lived process makes a store: its database is closed
    when the store goes, not when the garbage collector comes by (sqlite3's connection is in a
    reference cycle of its own), so a process making many keeps no descriptor of theirs open."""
    import gc

    directory = str(tmp_path / "parsed")
    ParseStore(directory)._open(create=True)  # the database made once

    def open_descriptors() -> int:
        return sum(1 for name in os.listdir("/proc/self/fd")
                   if os.path.realpath(f"/proc/self/fd/{name}").startswith(directory))

    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc to count descriptors")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(20):
            store = ParseStore(directory)
            assert store._open(create=False) is not None
            del store
        assert open_descriptors() == 0
    finally:
        if enabled:
            gc.enable()
