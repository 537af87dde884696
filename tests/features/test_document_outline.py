"""Document symbols, folding ranges and workspace symbols as pure functions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from navigation_repo import Repo, indexed_repo

from playbook_ls.features import symbols
from playbook_ls.features.folding import folding_ranges
from playbook_ls.features.symbols import Outline, document_symbols, workspace_symbols


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repo]:
    yield from indexed_repo(tmp_path_factory)


def tree(entries: list[Outline]) -> list[object]:
    return [(e.name, e.kind, e.span.line, e.span.end_line, *([tree(e.children)] if e.children else []))
            for e in entries]


def test_playbook_outline_is_plays_sections_blocks_tasks(repo: Repo) -> None:
    assert tree(document_symbols(repo.index, repo.path("web.yml"))) == [
        ("web servers", "play", 0, 31, [
            ("pre_tasks", "section", 3, 5, [("prepare", "task", 4, 5)]),
            ("roles", "section", 6, 8, [("web", "role", 7, 8)]),
            ("tasks", "section", 9, 28, [
                ("outer block", "block", 10, 23, [
                    ("in block", "task", 13, 15),
                    ("import_tasks tasks/common.yml", "task", 17, 18),
                    ("rescue", "section", 19, 23, [("rescued", "task", 20, 23)])]),
                ("include_role base", "task", 24, 28)]),
            ("handlers", "section", 29, 31, [("reload things", "handler", 30, 31)])])]
    play = document_symbols(repo.index, repo.path("web.yml"))[0]
    assert play.detail == "hosts: web · tags: edge, front"
    # the task ends at its last value, not at the blank line before the next one
    in_block = play.children[2].children[0].children[0]
    assert (in_block.span.end_line, in_block.span.end_col) == (15, 29)
    assert in_block.selection.line == 13 and in_block.detail == "debug"


def test_other_files_outline(repo: Repo) -> None:
    assert tree(document_symbols(repo.index, repo.path("site.yml"))) == [("import_playbook: web.yml", "import", 0, 1)]
    assert tree(document_symbols(repo.index, repo.path("roles/web/handlers/main.yml"))) == [
        ("restart web", "handler", 0, 1), ("also restart", "handler", 2, 4)]
    assert tree(document_symbols(repo.index, repo.path("roles/web/meta/main.yml"))) == [("base", "role", 1, 2)]
    assert tree(document_symbols(repo.index, repo.path("roles/lonely/tasks/main.yml"))) == [
        ("lonely", "task", 0, 2), ("import_role base", "task", 3, 4)]


def test_outline_follows_the_buffer_and_survives_broken_yaml(repo: Repo) -> None:
    path = repo.path("tasks/more.yml")
    try:
        repo.index.set_document(path, "- name: renamed\n  debug: msg=m\n- block:\n    - ping:\n")
        assert tree(document_symbols(repo.index, path)) == [
            ("renamed", "task", 0, 1), ("block", "block", 2, 3, [("ping", "task", 3, 3)])]
        repo.index.set_document(path, "- name: [unclosed\n")
        assert document_symbols(repo.index, path) == []
        assert folding_ranges(repo.index, path) is None
    finally:
        repo.index.set_document(path, None)


def test_folding_covers_plays_blocks_tasks_and_nested_mappings(repo: Repo) -> None:
    ranges = folding_ranges(repo.index, repo.path("web.yml"))
    assert ranges is not None
    for expected in [(0, 31), (3, 5), (10, 23), (12, 18), (13, 15), (19, 23), (24, 28), (27, 28)]:
        assert expected in ranges
    assert len({start for start, _ in ranges}) == len(ranges)  # one range per start line
    assert folding_ranges(repo.index, repo.path("tasks/more.yml")) == [(0, 1)]


def test_workspace_symbols_match_roles_tags_and_tasks(repo: Repo) -> None:
    found = [(f.name, f.kind) for f in workspace_symbols(repo.index, "BASE")]
    assert found == [("base", "role"), ("basedep", "tag"), ("base : base extra", "task"),
                     ("base : base main", "task")]
    tag = next(f for f in workspace_symbols(repo.index, "front") if f.kind == symbols.TAG)
    assert repo.where([tag.span]) == [("web.yml", 2, "front")]
    assert len(workspace_symbols(repo.index, "", limit=3)) == 3
    # the same task reached from two playbooks is listed once
    assert [f.name for f in workspace_symbols(repo.index, "install")] == ["install", "web : install web"]
