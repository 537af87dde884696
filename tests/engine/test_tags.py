"""Tag selection: ansible-core's evaluate_tags, checked against ansible-core itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.flow.tags import Selection, TagEvaluator, should_run
from engine.loading.model import UNTAGGED, Play
from engine.loading.resolve import Resolver

POOL = ["a", "b", "always", "never", "all", "tagged", "untagged"]
tag_sets = st.sets(st.sampled_from(POOL[:4] + ["c"]), max_size=4)
selections = st.tuples(st.lists(st.sampled_from(POOL), max_size=3), st.lists(st.sampled_from(POOL), max_size=3))


@pytest.mark.parametrize(
    ("tags", "only", "skip", "expected"),
    [
        (set(), [], [], True),  # untagged, default run
        ({"never"}, [], [], False),  # never stays out of a default run
        ({"never", "x"}, ["x"], [], True),  # ... but any other selected tag brings it back
        ({"never"}, ["never"], [], True),
        ({"never", "x"}, ["x"], ["never"], False),  # only --skip-tags never keeps it out for sure
        ({"always"}, ["x"], [], True),
        ({"always"}, [], ["always"], False),
        ({"always"}, [], ["all"], True),  # skipping all spares always ...
        ({"always"}, [], ["all", "always"], False),  # ... unless always is skipped too
        ({"x"}, ["tagged"], [], True),
        (set(), ["tagged"], [], False),
        (set(), ["untagged"], [], True),
        ({"never", "always"}, [], [], True),
    ],
)
def test_evaluate_tags_rules(tags: set[str], only: list[str], skip: list[str], expected: bool) -> None:
    assert should_run(tags or UNTAGGED, Selection.from_options(only, skip)) is expected


def test_options_are_repeatable_and_comma_separated() -> None:
    selection = Selection.from_options(["a,b", "c"], ["d, e"])
    assert selection.only_tags == {"a", "b", "c"} and selection.skip_tags == {"d", "e"}
    assert Selection.from_options([], []).only_tags == {"all"}
    assert Selection.from_options([""], []).only_tags == {""}
    assert Selection.from_options([], [], listing_tags=True).only_tags == {"never", "all"}


@settings(max_examples=400, deadline=None)
@given(tags=tag_sets, selection=selections)
def test_matches_ansible_core(tags: set[str], selection: tuple[list[str], list[str]]) -> None:
    taggable = pytest.importorskip("ansible.playbook.taggable")

    class Probe(taggable.Taggable):
        _parent = None
        _loader = None

        def get_play(self) -> None:
            return None

    probe = Probe()
    probe._tags = sorted(tags)
    ours = Selection.from_options(*selection)
    assert should_run(tags or UNTAGGED, ours) == probe.evaluate_tags(set(ours.only_tags), set(ours.skip_tags), {})


def _resolved(tmp_path: Path, text: str) -> Play:
    (tmp_path / "roles" / "r" / "tasks").mkdir(parents=True)
    (tmp_path / "roles" / "r" / "tasks" / "main.yml").write_text("- debug: msg=in r\n  tags: [r1]\n- debug: msg=bare\n")
    (tmp_path / "site.yml").write_text(text)
    return Resolver().load_playbook(str(tmp_path / "site.yml")).plays[0]


PLAIN = """\
- hosts: all
  tags: p
  roles:
    - role: r
      tags: [entry]
  tasks:
    - block:
        - debug: msg=one
          tags: [t1, never]
        - debug: msg=two
    - debug: msg=three
"""


def test_a_play_without_templated_tags_is_filtered_from_the_tags_as_written(tmp_path: Path) -> None:
    play = _resolved(tmp_path, PLAIN)
    assert play.templated_tags is False
    static, ordered = TagEvaluator.for_play(play), TagEvaluator()
    tasks = [task for block in play.compile() for task in block.tasks()]
    assert [static.evaluate(task) for task in tasks] == [ordered.evaluate(task) for task in tasks]
    assert [static.current_tags(task) for task in tasks] == [ordered.current_tags(task) for task in tasks]
    assert {"p", "entry", "r1"} in [set(static.evaluate(task)) for task in tasks]


def test_a_play_with_a_templated_tag_keeps_ansibles_templating_order(tmp_path: Path) -> None:
    play = _resolved(tmp_path, PLAIN.replace("tags: [t1, never]", "tags: ['{{ \"t\" ~ 1 }}']"))
    assert play.templated_tags is True
    assert TagEvaluator.for_play(play)._static is False
