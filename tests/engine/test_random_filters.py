"""``random`` and ``shuffle`` with a seed give what ansible-core's filters give (the same
Python ``Random``); without one, static evaluation says only the run picks."""

from __future__ import annotations

import pytest

from engine.templating.filters.randomness import random_filter, shuffle_filter
from engine.templating.pure_lookups import PureLookups
from engine.templating.templar import Templar

SEEDED = [(range(1, 2), "h1"), (["a", "b", "c", "d"], "h1"), (["a", "b", "c", "d"], "web-07"), (100, "db1"),
          (16641, "ovn")]


@pytest.mark.parametrize(("end", "seed"), SEEDED)
def test_seeded_random_as_ansible_core(end: object, seed: str) -> None:
    core = pytest.importorskip("ansible.plugins.filter.core")
    assert random_filter(end, seed=seed) == core.rand(None, end, seed=seed)


def test_seeded_shuffle_as_ansible_core() -> None:
    core = pytest.importorskip("ansible.plugins.filter.core")
    assert shuffle_filter(list(range(10)), seed="x") == core.randomize_list(list(range(10)), seed="x")


def test_without_a_seed_only_the_run_picks() -> None:
    variables = {"port": "{{ [1, 2, 3] | random }}", "fixed": "{{ [1, 2, 3] | random(seed='a') }}"}
    static = Templar(variables, PureLookups(), bounded=True)
    assert static.template("{{ fixed }}") in (1, 2, 3)
    with pytest.raises(Exception, match="only the run picks"):
        static.template("{{ port }}")
    assert Templar(variables).template("{{ port }}") in (1, 2, 3)  # a run picks one
