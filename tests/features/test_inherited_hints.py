"""Inlay hints for inherited tags as a pure function."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from navigation_repo import Repo, indexed_repo

from playbook_ls.features.inlay import inherited_tag_hints


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repo]:
    yield from indexed_repo(tmp_path_factory)


def test_hints_show_inherited_tags_at_the_name_line(repo: Repo) -> None:
    hints = inherited_tag_hints(repo.index, repo.path("web.yml"), 0, 100)
    assert [(h.line, h.label) for h in hints] == [
        (4, " ⟵ inherited: nightly, edge, front"),  # site.yml's import_playbook tags are one context
        (13, " ⟵ inherited: nightly, edge, front, blk"),
        (20, " ⟵ inherited: nightly, edge, front, blk"),
        (24, " ⟵ inherited: nightly, edge, front")]  # an unnamed task: its first line
    assert hints[0].col == len("    - name: prepare")
    assert 'blk ← block "outer block" (' in hints[1].tooltip


def test_hints_are_the_union_over_contexts(repo: Repo) -> None:
    hints = inherited_tag_hints(repo.index, repo.path("roles/base/tasks/main.yml"), 0, 100)
    assert [h.label for h in hints] == [" ⟵ inherited: nightly, edge, front, web, www, basedep"]


def test_hints_only_within_the_range_and_none_without_inherited_tags(repo: Repo) -> None:
    assert [h.line for h in inherited_tag_hints(repo.index, repo.path("web.yml"), 10, 20)] == [13, 20]
    # the lone role's own play sets no tags, and handlers are never selected by tags
    assert inherited_tag_hints(repo.index, repo.path("roles/lonely/tasks/main.yml"), 0, 100) == []
    assert inherited_tag_hints(repo.index, repo.path("roles/web/handlers/main.yml"), 0, 100) == []
