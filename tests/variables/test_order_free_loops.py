"""A loop over a list whose order only the run knows: what it sets is known only when every order
of its items gives it (engine.variables.order_free_loops)."""

from __future__ import annotations

from engine.variables.order_free_loops import MAX_ITEMS, every_order, order_free_effects
from engine.variables.sources import Layer
from engine.variables.task_results import Effects

ITEMS = ["a", "b", "c"]


def _setting(values: dict[str, object]) -> Effects:
    return Effects(facts=[Layer("set_facts", "task 'loop'", dict(values), runtime=True)])


def test_a_count_is_known_and_a_list_is_in_the_runs_order() -> None:
    found = order_free_effects(lambda order: _setting({"count": len(order), "seen": [ITEMS[i] for i in order]}),
                               every_order(ITEMS), "made from a set")
    assert found.facts[0].values["count"] == 3
    assert sorted(found.facts[0].values["seen"]) == ITEMS and found.facts[0].values["seen"].why == "made from a set"


def test_a_value_that_reads_one_place_is_the_runs_even_where_most_orders_agree() -> None:
    # 'a' at the second place: true in two of the six orders (b,a,c and c,a,b), none of which is
    # the given order, its reverse or its rotation by one
    def run(order: list[int]) -> Effects:
        return _setting({"a_second": ITEMS[order[1]] == "a"})

    assert order_free_effects(run, every_order(ITEMS), "made from a set") is None


def test_a_loop_of_more_items_than_can_be_followed_is_the_runs() -> None:
    assert len(every_order(ITEMS)) == 6
    assert every_order(list(range(MAX_ITEMS + 1))) is None
    assert order_free_effects(lambda order: _setting({"count": len(order)}), None, "why") is None
