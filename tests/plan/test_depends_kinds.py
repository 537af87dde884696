"""What a ``depends`` outcome of the plan waits for (plan_cases.depends_kind): a value the run
alone decides is no undecided outcome a plan could have decided."""

from __future__ import annotations

from plan_cases import depends_kind


def test_results_order_and_set_orders_are_the_runs() -> None:
    results = "the order the hosts' results come in"
    assert depends_kind("set by several of the 3 hosts of one batch in task 'x' (delegate_facts): the last to "
                        "finish wins") == results
    assert depends_kind("run_once: the order of the hosts group_by put in 'g' (as their results came in), which "
                        "only the run knows, so is the host it runs on") == results
    assert depends_kind("run_once: the hosts of group 'db', whose child groups' own child groups ansible walks "
                        "in the order of a Python set of groups, which each run makes anew, so is the host it "
                        "runs on") == "the inventory's order of a set of groups"
    assert depends_kind("a lookup").startswith("static: ")
