"""The results two test workers share: each key computed once, by whichever worker claims it."""

from __future__ import annotations

from pathlib import Path

import pytest
from worker_share import SharedResults


def test_without_xdist_every_key_of_the_batch_is_computed_once_here() -> None:
    calls: list[str] = []
    shared = SharedResults(None, lambda key: calls.append(key) or key.upper())
    assert shared.get("b", lambda: ["a", "b", "c"]) == "B"
    assert shared.get("c", lambda: ["a", "b", "c"]) == "C"
    assert sorted(calls) == ["a", "b", "c"]


def test_two_workers_split_the_batch_and_read_each_others_results(tmp_path: Path) -> None:
    first_calls: list[str] = []
    second_calls: list[str] = []
    first = SharedResults(tmp_path, lambda key: first_calls.append(key) or f"first:{key}")
    second = SharedResults(tmp_path, lambda key: second_calls.append(key) or f"second:{key}")
    assert first.get("a", lambda: ["a", "b"]) == "first:a"
    # the first worker claimed the whole batch: the second computes nothing and reads its results
    assert second.get("b", lambda: ["a", "b"]) == "first:b"
    assert second.get("a", lambda: ["a", "b"]) == "first:a"
    assert (sorted(first_calls), second_calls) == (["a", "b"], [])
    # a key nobody claimed yet is computed by whoever asks
    assert second.get("c", lambda: ["a", "b", "c"]) == "second:c"


def test_a_failure_in_the_claiming_worker_fails_the_test_that_asks_for_it(tmp_path: Path) -> None:
    def broken(key: str) -> str:
        raise RuntimeError(f"no run for {key}")

    claimant = SharedResults(tmp_path, broken)
    other = SharedResults(tmp_path, lambda key: key)
    with pytest.raises(pytest.fail.Exception, match="no run for x"):
        claimant.get("x", lambda: ["x"])
    with pytest.raises(pytest.fail.Exception, match="no run for x"):
        other.get("x", lambda: ["x"])
