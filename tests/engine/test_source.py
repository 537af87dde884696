"""The positioned loader: spans, Ansible YAML specifics, and errors as values."""

from __future__ import annotations

import math

import pytest

from engine.parsing.source import SourceCache, UnsafeText, VaultText, YMap, YSeq, parse_text

PLAYBOOK = """\
- hosts: web
  tags: [deploy, db]
  tasks:
    - name: wipe
      command: rm -rf /tmp/x chdir=/tmp
      tags: never
"""


def test_every_value_keeps_its_position() -> None:
    play = parse_text(PLAYBOOK, "site.yml").data[0]
    assert isinstance(play, YMap)
    assert (play.span.line, play.span.col) == (0, 2)
    tags = play.value_spans["tags"]
    assert (tags.line, tags.col, tags.end_line, tags.end_col) == (1, 8, 1, 20)
    assert play.key_spans["tags"].col == 2
    task = play["tasks"][0]
    assert (task.span.line, task.span.col) == (3, 6)
    assert (task.value_spans["tags"].line, task.value_spans["tags"].col) == (5, 12)
    assert isinstance(play["tags"], YSeq) and play["tags"].item_spans[1].col == 17


def test_yaml_1_1_scalars_like_ansible() -> None:
    data = parse_text("a: yes\nb: off\nc: 010\nd: 0x1f\ne: 1_000\nf: .inf\ng: ~\nh: 'yes'\ni: 1:30\n", "f").data
    assert data == {"a": True, "b": False, "c": 8, "d": 31, "e": 1000, "f": math.inf, "g": None, "h": "yes",
                    "i": 90}


def test_vault_and_unsafe_tags_load() -> None:
    data = parse_text("secret: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\nraw: !unsafe '{{ x }}'\n", "f").data
    assert isinstance(data["secret"], VaultText) and data["secret"].startswith("$ANSIBLE_VAULT")
    assert isinstance(data["raw"], UnsafeText) and data["raw"] == "{{ x }}"


def test_anchors_aliases_and_merge_keys() -> None:
    data = parse_text("base: &b {become: true, tags: [x]}\ntask:\n  <<: *b\n  tags: [y]\n", "f").data
    assert data["task"] == {"tags": ["y"], "become": True}


def test_syntax_error_is_a_positioned_value() -> None:
    loaded = parse_text("- hosts: all\n  tasks:\n    - debug: msg=hi\n   bad: indent\n", "broken.yml")
    assert loaded.data is None and loaded.error is not None
    assert (loaded.error.span.file, loaded.error.span.line) == ("broken.yml", 3)
    assert str(loaded.error).startswith("broken.yml:4:")


def test_unclosed_flow_and_tabs_do_not_raise() -> None:
    for text in ("a: [1, 2\n", "a:\n\t- b\n", "{{ x }}: y\n", "- [\n", "*undefined\n", "a: !!binary xx\n"):
        parse_text(text, "x.yml")  # must not raise


def test_empty_document_is_none() -> None:
    assert parse_text("", "e.yml").data is None
    assert parse_text("# only a comment\n", "e.yml").data is None


def test_cache_reuses_parse_and_sees_changes(tmp_path) -> None:
    path = tmp_path / "a.yml"
    path.write_text("- a\n")
    cache = SourceCache()
    first = cache.load(str(path))
    assert cache.load(str(path)) is first
    cache.overlay[str(path)] = "- b\n"
    assert cache.load(str(path)).data == ["b"]


def test_two_trees_side_by_side_parse_the_files_outside_both_once(tmp_path, monkeypatch) -> None:
    """``playbook-ls diff``'s two revisions read one inventory: parsed once; their own files,
    under whatever path, each by its own cache."""
    old, new, outside = tmp_path / "old", tmp_path / "new", tmp_path / "inventory.yml"
    for root in (old, new):
        root.mkdir()
        (root / "site.yml").write_text("- hosts: all\n")
    outside.write_text("all:\n  hosts:\n    h1:\n")
    first, second = SourceCache(), SourceCache()
    first.share_parses(second, (str(old), str(new)))
    assert first.load(str(outside)) is second.load(str(outside))
    assert (first.parsed, second.parsed) == (1, 0)
    assert first.load(str(old / "site.yml")) is not second.load(str(new / "site.yml"))
    monkeypatch.chdir(old)
    in_old = first.load("site.yml")
    monkeypatch.chdir(new)
    assert second.load("site.yml") is not in_old  # a relative path names a file of either tree
    assert (first.parsed, second.parsed) == (3, 2)


def test_missing_file_is_an_error_value(tmp_path) -> None:
    loaded = SourceCache().load(str(tmp_path / "nope.yml"))
    assert loaded.error is not None and "cannot read file" in loaded.error.message


def test_round_trip_keeps_comments_for_edits() -> None:
    from engine.parsing.source import dump_round_trip, load_round_trip

    text = "- hosts: web  # the web tier\n  tags: [deploy]\n"
    data = load_round_trip(text)
    data[0]["tags"].append("never")
    assert dump_round_trip(data) == "- hosts: web  # the web tier\n  tags: [deploy, never]\n"


def test_ruamel_c_loader_still_works_after_our_parsing() -> None:
    """Our lighter node classes are lent to the C composer only while we compose."""
    pytest.importorskip("_ruamel_yaml")
    from ruamel.yaml import YAML

    assert parse_text("a: [1, {b: 2}]\n", "x.yml").data == {"a": [1, {"b": 2}]}
    assert YAML(typ="safe").load("a: [1, {b: 2}]\n") == {"a": [1, {"b": 2}]}


def test_nested_tracking_records_in_every_level(tmp_path) -> None:
    one, two = tmp_path / "one.yml", tmp_path / "two.yml"
    one.write_text("a: 1\n")
    two.write_text("b: 2\n")
    cache = SourceCache()
    with cache.tracking() as outer:
        cache.load(str(one))
        with cache.tracking() as inner:
            cache.load(str(two))
    assert (outer, inner) == ([str(one), str(two)], [str(two)])


# Texts the libyaml of ruamel.yaml.clib (0.1.7) refuses and PyYAML's libyaml (0.2.x, what
# ansible-core parses with) accepts: ansible's parser decides.
@pytest.mark.parametrize(("text", "value"), [
    ("tags: [role::web]\n", {"tags": ["role::web"]}),
    ("a: {b: c::d}\n", {"a": {"b": "c::d"}}),
    ("a: [x?y, 'q']\n", {"a": ["x?y", "q"]}),
])
def test_what_ansibles_parser_accepts_loads(text: str, value: object) -> None:
    loaded = parse_text(text, "f.yml")
    assert loaded.error is None and loaded.data == value


def test_fallback_parse_keeps_positions_aliases_and_yaml_1_1() -> None:
    loaded = parse_text("base: &b {become: yes}\ntask:\n  <<: *b\n  tags: [a::b, '010']\n  n: 010\n", "f.yml")
    task = loaded.data["task"]
    assert task == {"become": True, "tags": ["a::b", "010"], "n": 8}
    assert (task.value_spans["tags"].line, task.value_spans["tags"].col) == (3, 8)
    assert task["tags"].item_spans[0].col == 9


def test_invalid_for_both_parsers_reports_ansibles_error_with_position() -> None:
    loaded = parse_text("- hosts: all\n  tags: [role::web\n", "bad.yml")
    assert loaded.data is None and loaded.error is not None
    assert loaded.error.span.line == 2 and "flow sequence" in loaded.error.message
