"""Where a host goes after a failure in blocks (engine.flow.block_failures), on hand-built blocks:
the rescue of the innermost block holding the failure in its ``block`` section, the ``always``
sections around it, past the rescuing block the host goes on; without a rescue it stays out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.flow.block_failures import NORMAL, NOT_REACHED, BlockFailures


@dataclass(eq=False)
class T:
    name: str
    children: list[Any] = field(default_factory=list)


@dataclass(eq=False)
class B:
    block: list[Any] = field(default_factory=list)
    rescue: list[Any] = field(default_factory=list)
    always: list[Any] = field(default_factory=list)


def test_a_rescued_failure_runs_the_rescue_and_always_then_goes_on() -> None:
    fail, after, rescue, always, later = T("fail"), T("after"), T("rescue"), T("always"), T("later")
    failures = BlockFailures([B([fail, after], [rescue], [always]), B([later])])
    assert failures.fail("h", fail) is True
    assert failures.after_failure("h", after) == NOT_REACHED
    assert failures.rescue_runs("h", rescue) is True
    assert failures.after_failure("h", rescue) == NORMAL
    assert failures.after_failure("h", always) == NORMAL
    assert failures.after_failure("h", later) is None  # past the block: the host goes on
    assert failures.rescue_runs("other", rescue) is False  # nothing failed there


def test_without_a_rescue_only_the_always_sections_around_run() -> None:
    fail, inner_always, outer_after, outer_always, later = T("f"), T("ia"), T("oa"), T("oal"), T("l")
    inner = B([fail], [], [inner_always])
    failures = BlockFailures([B([inner, outer_after], [], [outer_always]), B([later])])
    assert failures.fail("h", fail) is False
    assert failures.after_failure("h", inner_always) == NORMAL
    assert failures.after_failure("h", outer_after) == NOT_REACHED
    assert failures.after_failure("h", outer_always) == NORMAL
    assert failures.after_failure("h", later) == NOT_REACHED


def test_a_failure_in_a_rescue_goes_to_the_outer_rescue_and_a_maybe_failure_leaves_it_open() -> None:
    fail, rescue_fail, inner_rest, outer_rescue = T("f"), T("rf"), T("rest"), T("or")
    inner = B([fail], [rescue_fail, inner_rest])
    failures = BlockFailures([B([inner], [outer_rescue])])
    assert failures.fail("h", fail) is True
    assert failures.fail("h", rescue_fail) is True  # the outer block rescues the rescue's failure
    assert failures.after_failure("h", inner_rest) == NOT_REACHED
    assert failures.rescue_runs("h", outer_rescue) is True
    failures.may_fail(["other", "another"], fail)  # hosts the task may fail on, noted at once
    assert failures.rescue_runs("other", rescue_fail) is None
    assert failures.rescue_runs("another", outer_rescue) is None
    assert failures.rescue_runs("none", rescue_fail) is False


def test_a_task_reached_two_ways_is_not_placed() -> None:
    shared = T("shared")
    failures = BlockFailures([B([shared], [T("r")]), B([B([shared])])])
    assert failures.fail("h", shared) is None


def test_a_maybe_failure_is_noted_for_the_blocks_with_a_rescue_only() -> None:
    task, outer_rescue = T("t"), T("or")
    outer = B([B([task])], [outer_rescue])  # the inner block has no rescue: only the outer one's may run
    failures = BlockFailures([outer])
    assert failures.in_blocks(task) is True
    failures.may_fail(["h"], task)
    assert failures.maybe == {id(outer): {"h"}}
    assert failures.rescue_runs("h", outer_rescue) is None
    assert failures.rescue_runs("other", outer_rescue) is False
    alone = T("a")
    failures = BlockFailures([B([B([alone], [], [T("al")])])])
    assert failures.in_blocks(alone) is False  # blocks, none with a rescue: no rescue to run
    failures.may_fail(["h"], alone)
    assert failures.maybe == {}
